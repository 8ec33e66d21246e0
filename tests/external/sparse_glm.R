# Reference fit of a tapered layout in R, from sparse triplets written by
#   pgntune extract GAMES.pgn --features SETS -o rows.ijv
#
# Usage:  Rscript tests/external/sparse_glm.R rows.ijv
#
# The triplets are read with read.table(comment.char = "%") into a
# Matrix::sparseMatrix, as the .ijv format is documented for. The last
# three columns are the result, the game and the ply (no evaluation labels
# here). The model is glm(result ~ X - 1, binomial) on the decisive rows,
# converged tightly (epsilon 1e-14).
#
# Output, one `key v1 v2 ...` line each (10 significant digits):
#   rows      decisive rows used, feature columns
#   coef      θ per feature column, in file order
#   se        the standard errors glm reports
suppressMessages(library(Matrix))
args <- commandArgs(trailingOnly = TRUE)
t <- read.table(args[1], comment.char = "%", col.names = c("i", "j", "v"))
size <- t[nrow(t), ]
M <- sparseMatrix(i = t$i, j = t$j, x = t$v, dims = c(size$i, size$j))
features <- ncol(M) - 3
y <- M[, features + 1]
decisive <- y == 0 | y == 1
X <- as.matrix(M[decisive, 1:features])
g <- glm(y[decisive] ~ X - 1, family = binomial(), control = glm.control(epsilon = 1e-14, maxit = 100))
stopifnot(g$converged, !any(is.na(coef(g))))
say <- function(key, v) cat(key, sprintf("%.10g", v), "\n")
say("rows", c(sum(decisive), features))
say("coef", unname(coef(g)))
say("se", unname(sqrt(diag(vcov(g)))))
