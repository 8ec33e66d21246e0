# Round trip of tag and FEN text through the TSV export and R's default reader.
#
# Usage:
#   pgntune extract tests/external/tricky_tags.pgn --tags White,Black,Event,Date \
#       --fen --emit all -o tags.tsv
#   Rscript tests/external/read_tags.R tags.tsv
#
# Reads the file with exactly `read.table(file, header = TRUE)` and prints,
# for the first row of each game, every text column as R holds it:
#   rows  <rows read> <data lines in the file>
#   tag   <game> <column> <value>
# where <value> is encodeString(value, quote = '"'): a double-quoted string
# with R's escapes (\" for a quote, \\ for one backslash, \u.... never used:
# non-ASCII text is printed as UTF-8), or NA for a missing value. A test
# compares these lines with the PGN's own tag values.

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript read_tags.R tags.tsv")
d <- read.table(args[1], header = TRUE)
cat(sprintf("rows %d %d\n", nrow(d), length(readLines(args[1])) - 1L))
first <- d[!duplicated(d$game), , drop = FALSE]
for (i in seq_len(nrow(first))) {
  for (col in setdiff(names(d), c("P", "N", "B", "R", "Q", "result", "game", "ply"))) {
    v <- first[[col]][i]
    shown <- if (is.na(v)) "NA" else encodeString(as.character(v), quote = '"')
    cat(sprintf("tag %d %s %s\n", first$game[i], col, shown))
  }
}
cat("ok\n")
