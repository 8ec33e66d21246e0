# Reference numbers for `pgntune analyze`, from a TSV written by
#   pgntune extract GAMES.pgn -o rows.tsv
#
# Usage:  Rscript tests/external/analyze.R rows.tsv
#
# The TSV is read with `read.table(file, header = TRUE)`; needed columns:
# P N B R Q result. Output: one result per line, `key v1 v2 ...`, numbers
# with 10 significant digits (`%.10g`). Keys:
#
#   alpha            α se lo hi: the score curve's logistic
#                    E(ΔM) = 1 / (1 + e^(−α ΔM)) on the 1-3-3-5-9 balance
#                    ΔM = P + 3N + 3B + 5R + 9Q, no intercept, fitted by
#                    quasibinomial glm on all rows (draws as 0.5); se is
#                    R's (dispersion from the Pearson residuals); lo, hi
#                    = α ∓ qnorm(0.975) se
#   alpha_decisive   the same on decisive rows, binomial glm
#   cell_plus1       rows and mean score of the rows with ΔM = +1
#   values           100 θ / θ_P for N B R Q: quasibinomial glm of result on
#                    P N B R Q (no intercept), all rows, draws as 0.5
#   values_lo / values_hi
#                    their 95% intervals by the delta method on R's
#                    covariance (vcov, dispersion-scaled)
#   ok               last line: the script ran to the end
#
# R's glm has no ridge penalty: compare with pgntune's fits at --lambda 0
# (the default λ = 1e-6 moves the queen's interval by over a centipawn).
# The score curve's α is fitted without a penalty anyway.

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript analyze.R rows.tsv")

fmt <- function(x) sprintf("%.10g", x)
out <- function(key, x) cat(paste(c(key, fmt(unname(x))), collapse = " "), "\n", sep = "")

feat <- c("P", "N", "B", "R", "Q")
d <- read.table(args[1], header = TRUE)
missing <- setdiff(c(feat, "result"), names(d))
if (length(missing) > 0) stop("columns missing from ", args[1], ": ", paste(missing, collapse = ", "))
if (!all(d$result %in% c(0, 0.5, 1))) stop("result must be 0, 0.5 or 1")

z <- qnorm(0.975)
ctl <- glm.control(epsilon = 1e-14, maxit = 100)
d$dm <- d$P + 3 * d$N + 3 * d$B + 5 * d$R + 9 * d$Q

# quasibinomial takes the 0.5 targets without the binomial family's warning
# about non-integer successes; its estimate is the binomial one.
half <- suppressWarnings(glm(result ~ 0 + dm, family = quasibinomial, data = d, control = ctl))
a <- coef(half)[["dm"]]
se <- sqrt(vcov(half)[1, 1])
out("alpha", c(a, se, a - z * se, a + z * se))

dec <- d[d$result != 0.5, ]
decisive <- glm(result ~ 0 + dm, family = binomial, data = dec, control = ctl)
a <- coef(decisive)[["dm"]]
se <- sqrt(vcov(decisive)[1, 1])
out("alpha_decisive", c(a, se, a - z * se, a + z * se))

plus1 <- d$result[d$dm == 1]
out("cell_plus1", c(length(plus1), mean(plus1)))

pieces <- suppressWarnings(glm(result ~ 0 + P + N + B + R + Q, family = quasibinomial, data = d, control = ctl))
theta <- coef(pieces)
cov <- vcov(pieces)
values <- c()
lo <- c()
hi <- c()
for (j in c("N", "B", "R", "Q")) {
    v <- 100 * theta[[j]] / theta[["P"]]
    # The gradient of 100 θj / θP with respect to (θj, θP).
    g <- c(100 / theta[["P"]], -100 * theta[[j]] / theta[["P"]]^2)
    sub <- cov[c(j, "P"), c(j, "P")]
    half_width <- z * sqrt(drop(t(g) %*% sub %*% g))
    values <- c(values, v)
    lo <- c(lo, v - half_width)
    hi <- c(hi, v + half_width)
}
out("values", values)
out("values_lo", lo)
out("values_hi", hi)
cat("ok\n")
