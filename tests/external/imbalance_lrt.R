# The likelihood-ratio tests of `pgntune analyze --imbalance`, redone in R
# with glm and anova, from a TSV written by
#   pgntune extract GAMES.pgn --features material_tapered,bishop_pair,imbalance -o rows.tsv
#
# Usage:  Rscript tests/external/imbalance_lrt.R rows.tsv
#
# Models (no intercept, as pgntune's): the big one has every feature column;
# each test drops some columns, with the same keys pgntune's JSON uses:
#
#   imbalance          every imb_* and kaufman_* column (26)
#   kaufman_N_pawns, kaufman_R_pawns, imb_R_R, imb_Q_R     one column each
#   major_redundancy   imb_R_R and imb_Q_R
#   bishop_pair        mg_/eg_bishop_pair and every *Bpair* product
#
# Output: one result per line, `key v1 v2 ...`, numbers with 10 significant
# digits, fields separated by one space:
#
#   lrt_rows n                 decisive rows (result 0 or 1)
#   lrt_KEY ΔD df 1 p          anova(glm_small, glm_big, test = "LRT"),
#                              binomial family, decisive rows
#   qlrt_rows n                all rows (draws as 0.5)
#   qlrt_KEY ΔD df φ p         the same with the quasibinomial family on all
#                              rows; φ = summary(glm_big)$dispersion, which
#                              anova divides ΔD by before its χ² p-value
#   ok                         last line: the script ran to the end

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript imbalance_lrt.R rows.tsv")

fmt <- function(x) sprintf("%.10g", x)
out <- function(key, x) cat(paste(c(key, fmt(unname(x))), collapse = " "), "\n", sep = "")

d <- read.table(args[1], header = TRUE)
pieces <- c("P", "N", "B", "R", "Q")
material <- c(paste0("mg_", pieces), paste0("eg_", pieces), "mg_bishop_pair", "eg_bishop_pair")
products <- grep("^(imb_|kaufman_)", names(d), value = TRUE)
if (length(products) != 26) stop("expected 26 imbalance columns, found ", length(products))
missing <- setdiff(c(material, "result"), names(d))
if (length(missing) > 0) stop("columns missing from ", args[1], ": ", paste(missing, collapse = ", "))
features <- c(material, products)

tests <- list(
  imbalance = products,
  kaufman_N_pawns = "kaufman_N_pawns",
  kaufman_R_pawns = "kaufman_R_pawns",
  imb_R_R = "imb_R_R",
  imb_Q_R = "imb_Q_R",
  major_redundancy = c("imb_R_R", "imb_Q_R"),
  bishop_pair = grep("bishop_pair|Bpair", features, value = TRUE)
)

tight <- glm.control(epsilon = 1e-14, maxit = 100)
model <- function(columns, family, data) {
  glm(reformulate(columns, response = "result", intercept = FALSE), family = family, data = data, control = tight)
}

run <- function(prefix, family, data) {
  out(paste0(prefix, "_rows"), nrow(data))
  big <- model(features, family, data)
  if (any(is.na(coef(big)))) stop("the big model is not identified on these rows")
  dispersion <- summary(big)$dispersion
  for (key in names(tests)) {
    small <- model(setdiff(features, tests[[key]]), family, data)
    a <- anova(small, big, test = "LRT")
    out(paste0(prefix, "_", key), c(a$Deviance[2], a$Df[2], dispersion, a[2, ncol(a)]))
  }
}

# Decisive rows: a binomial likelihood, so ΔD is the likelihood ratio itself.
run("lrt", binomial, d[d$result != 0.5, ])
# All rows, draws as half points: a quasi-likelihood.
run("qlrt", quasibinomial, d)
cat("ok\n")
