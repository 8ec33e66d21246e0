# Reference fits of piece values in R, from a TSV written by
#   pgntune extract GAMES.pgn -o rows.tsv
#
# Usage:  Rscript tests/external/fit.R rows.tsv
#
# The TSV is read with exactly `read.table(file, header = TRUE)`, the call the
# export is documented for. Needed columns: P N B R Q result (extra columns
# such as game, ply, tags or fen are read but not used).
#
# Output: one result per line, `key v1 v2 ...`, fields separated by one space,
# numbers printed with 10 significant digits (`%.10g`), so that a test can
# split each line on white space. Keys (all vectors are in the order P N B R Q):
#
#   features              P N B R Q            (the column order of every vector)
#   rows                  all rows, decisive rows (result 0 or 1), draws
#   coef / se / norm      logit glm on decisive rows, converged tightly
#                         (epsilon 1e-14); se from the Fisher information at
#                         the final θ; norm = 100 θ / θ_P
#   loglik                its log-likelihood, and mean negative log-likelihood
#   glm_default_coef / glm_default_se
#                         the same glm with R's default control (epsilon 1e-8):
#                         the numbers R prints by default. Its se lags by one
#                         IRLS iteration, so it differs from `se` in the 7th digit.
#   quasi_coef / quasi_se / quasi_norm / quasi_dispersion
#                         quasibinomial glm on all rows, draws as 0.5
#   l2_lambda, l2_coef, l2_maxreldiff
#                         θ minimising mean NLL + λ Σθ² on decisive rows
#                         (λ = 1e-6, Newton), and max_i |θ_i/θ̂_i − 1|
#   l2_lambda_for_1e-4    the λ that would make that 1e-4 (linear estimate)
#   ord_coef / ord_se / ord_norm / ord_cut / ord_logcut / ord_loglik
#                         ordered logit of 0 / 0.5 / 1 on all rows, no
#                         intercept, symmetric cut points ±c:
#                           P(y = 0)   = σ(−c − xθ)
#                           P(y = 1)   = σ(xθ − c)
#                           P(y = 0.5) = σ(c − xθ) − σ(−c − xθ)
#                         ord_cut is `c se(c)`, ord_logcut `ln c se(ln c)`;
#                         loglik lines are `log-likelihood mean-NLL`
#   ordfree_*             the same with free cut points ζ1 < ζ2 (logit
#                         P(y ≤ k) = ζ_k − xθ), as MASS::polr parametrises it
#   polr_coef / polr_zeta / polr_loglik
#                         MASS::polr itself (BFGS, good to ~5 digits only),
#                         printed only if MASS is installed
#   ok                    last line: the script ran to the end

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript fit.R rows.tsv")

fmt <- function(x) sprintf("%.10g", x)
out <- function(key, x) cat(paste(c(key, fmt(unname(x))), collapse = " "), "\n", sep = "")

feat <- c("P", "N", "B", "R", "Q")
d <- read.table(args[1], header = TRUE)
missing <- setdiff(c(feat, "result"), names(d))
if (length(missing) > 0) stop("columns missing from ", args[1], ": ", paste(missing, collapse = ", "))
if (!all(d$result %in% c(0, 0.5, 1))) stop("result must be 0, 0.5 or 1")

dec <- d[d$result != 0.5, ]
X <- as.matrix(dec[, feat])
y <- dec$result
cat(paste(c("features", feat), collapse = " "), "\n", sep = "")
cat(sprintf("rows %d %d %d\n", nrow(d), nrow(dec), sum(d$result == 0.5)))

form <- result ~ 0 + P + N + B + R + Q
tight <- glm.control(epsilon = 1e-14, maxit = 100)

# 1. Logistic regression on decisive rows.
m <- glm(form, family = binomial, data = dec, control = tight)
theta <- coef(m)[feat]
h <- plogis(drop(X %*% theta))
info <- crossprod(X, X * (h * (1 - h)))       # X' diag(h(1-h)) X at the final θ
out("coef", theta)
out("se", sqrt(diag(solve(info))))
out("norm", 100 * theta / theta[1])
ll <- sum(y * log(h) + (1 - y) * log(1 - h))
out("loglik", c(ll, -ll / nrow(X)))

m0 <- glm(form, family = binomial, data = dec)
out("glm_default_coef", coef(m0)[feat])
out("glm_default_se", sqrt(diag(vcov(m0)))[feat])

# 2. Quasibinomial on all rows, targets 0 / 0.5 / 1.
q <- glm(form, family = quasibinomial, data = d, control = tight)
out("quasi_coef", coef(q)[feat])
out("quasi_se", sqrt(diag(vcov(q)))[feat])
out("quasi_norm", 100 * coef(q)[feat] / coef(q)[["P"]])
out("quasi_dispersion", summary(q)$dispersion)

# 3. L2-penalised fit: minimise (1/n) Σ NLL_i + λ Σ θ², Newton from θ̂.
lambda <- 1e-6
n <- nrow(X)
th <- theta
for (it in 1:100) {
  h <- plogis(drop(X %*% th))
  g <- drop(crossprod(X, h - y)) / n + 2 * lambda * th
  H <- crossprod(X, X * (h * (1 - h))) / n + diag(2 * lambda, length(th))
  step <- solve(H, g)
  th <- th - step
  if (max(abs(step)) < 1e-13) break
}
out("l2_lambda", lambda)
out("l2_coef", th)
rel <- max(abs(th / theta - 1))
out("l2_maxreldiff", rel)
# The shift is linear in λ at this size: the λ that would shift θ by 1e-4.
out("l2_lambda_for_1e-4", lambda * 1e-4 / rel)

# 4. Ordered logit of the three outcomes on all rows, no intercept.
#    Score s = xθ and cut points ζ1 < ζ2:
#      P(y = 0)   = σ(ζ1 − s)
#      P(y = 0.5) = σ(ζ2 − s) − σ(ζ1 − s)
#      P(y = 1)   = 1 − σ(ζ2 − s) = σ(s − ζ2)
#    The cut points are ζ = M κ: M = (−1, 1)' gives the symmetric model ±c
#    (κ = c), M = I the free model of MASS::polr (κ = ζ). Fitted by Newton on
#    (θ, κ) with the exact Hessian, halving the step if the likelihood drops.
Xa <- as.matrix(d[, feat])
ya <- d$result
loss <- ya == 0
win <- ya == 1
draw <- ya == 0.5

ord_fit <- function(M) {
  k <- ncol(M)
  # Log-likelihood and, if wanted, its gradient and Hessian in (θ, κ).
  lik <- function(par, derivs = TRUE) {
    th <- par[1:5]; z <- drop(M %*% par[-(1:5)])
    if (z[1] >= z[2]) return(list(ll = -Inf))
    s <- drop(Xa %*% th)
    n <- length(s)
    ll <- numeric(n)
    ls <- lss <- numeric(n)
    lz <- lsz <- matrix(0, n, 2)
    lzz <- matrix(0, n, 3)                    # columns: z1z1, z1z2, z2z2
    # y = 0: log σ(a), a = ζ1 − s
    a <- z[1] - s[loss]; Fa <- plogis(a)
    ll[loss] <- plogis(a, log.p = TRUE)
    ls[loss] <- -(1 - Fa); lz[loss, 1] <- 1 - Fa
    lss[loss] <- -Fa * (1 - Fa); lzz[loss, 1] <- -Fa * (1 - Fa); lsz[loss, 1] <- Fa * (1 - Fa)
    # y = 1: log σ(a), a = s − ζ2
    a <- s[win] - z[2]; Fa <- plogis(a)
    ll[win] <- plogis(a, log.p = TRUE)
    ls[win] <- 1 - Fa; lz[win, 2] <- -(1 - Fa)
    lss[win] <- -Fa * (1 - Fa); lzz[win, 3] <- -Fa * (1 - Fa); lsz[win, 2] <- Fa * (1 - Fa)
    # y = 0.5: log p, p = σ(u) − σ(v), u = ζ2 − s, v = ζ1 − s
    u <- z[2] - s[draw]; v <- z[1] - s[draw]
    Fu <- plogis(u); Fv <- plogis(v)
    fu <- Fu * (1 - Fu); fv <- Fv * (1 - Fv)             # σ'
    gu <- fu * (1 - 2 * Fu); gv <- fv * (1 - 2 * Fv)     # σ''
    p <- Fu - Fv
    ll[draw] <- log(p)
    ps <- fv - fu; p1 <- -fv; p2 <- fu                    # first derivatives of p
    ls[draw] <- ps / p; lz[draw, 1] <- p1 / p; lz[draw, 2] <- p2 / p
    lss[draw] <- (gu - gv) / p - (ps / p)^2
    lsz[draw, 1] <- gv / p - ps * p1 / p^2
    lsz[draw, 2] <- -gu / p - ps * p2 / p^2
    lzz[draw, 1] <- -gv / p - (p1 / p)^2
    lzz[draw, 2] <- -p1 * p2 / p^2
    lzz[draw, 3] <- gu / p - (p2 / p)^2
    if (!derivs) return(list(ll = sum(ll)))
    Z <- colSums(lzz)
    g <- c(drop(crossprod(Xa, ls)), drop(crossprod(M, colSums(lz))))
    Htk <- crossprod(Xa, lsz) %*% M
    Hkk <- crossprod(M, matrix(c(Z[1], Z[2], Z[2], Z[3]), 2) %*% M)
    H <- rbind(cbind(crossprod(Xa, Xa * lss), Htk), cbind(t(Htk), Hkk))
    list(ll = sum(ll), g = g, H = H)
  }
  # Start: θ = 0, cut points matching the observed outcome shares.
  z0 <- qlogis(cumsum(c(mean(loss), mean(draw))))
  kappa0 <- if (k == 1) (z0[2] - z0[1]) / 2 else z0
  par <- c(rep(0, 5), kappa0)
  cur <- lik(par)
  for (it in 1:200) {
    step <- solve(-cur$H, cur$g)
    t <- 1
    repeat {
      cand <- par + t * step
      nxt <- lik(cand)
      if (nxt$ll >= cur$ll || t < 1e-10) break
      t <- t / 2
    }
    par <- cand; cur <- nxt
    if (max(abs(t * step)) < 1e-12) break
  }
  list(par = par, se = sqrt(diag(solve(-cur$H))), ll = cur$ll)
}

sym <- ord_fit(matrix(c(-1, 1), 2, 1))
out("ord_coef", sym$par[1:5])
out("ord_se", sym$se[1:5])
out("ord_norm", 100 * sym$par[1:5] / sym$par[1])
out("ord_cut", c(sym$par[6], sym$se[6]))
# The same band as γ = ln c (a parametrisation that keeps c > 0); at the
# optimum the information transforms exactly, so se(γ) = se(c) / c.
out("ord_logcut", c(log(sym$par[6]), sym$se[6] / sym$par[6]))
out("ord_loglik", c(sym$ll, -sym$ll / nrow(Xa)))

free <- ord_fit(diag(2))
out("ordfree_coef", free$par[1:5])
out("ordfree_se", free$se[1:5])
out("ordfree_norm", 100 * free$par[1:5] / free$par[1])
out("ordfree_zeta", free$par[6:7])
out("ordfree_zeta_se", free$se[6:7])
out("ordfree_loglik", c(free$ll, -free$ll / nrow(Xa)))

# Cross-check of the free model with MASS::polr (BFGS: agrees with ordfree to
# about 5-6 digits only), if MASS (Debian: r-cran-mass, pulled in by
# r-recommended) is installed. polr's linear predictor never has an intercept
# (the cut points play that role), so the formula has no `0 +`.
if (requireNamespace("MASS", quietly = TRUE)) {
  Y <- factor(ya, levels = c(0, 0.5, 1), ordered = TRUE)
  pm <- MASS::polr(Y ~ P + N + B + R + Q, data = cbind(d[, feat], Y = Y),
                   method = "logistic")
  out("polr_coef", coef(pm)[feat])
  out("polr_zeta", pm$zeta)
  out("polr_loglik", as.numeric(logLik(pm)))
}
cat("ok\n")
