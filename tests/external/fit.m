% Reference logistic fit of piece values in Octave, from a file written by
%   pgntune extract GAMES.pgn -o rows.txt --format octave
%
% Usage (either form):
%   octave-cli --no-gui tests/external/fit.m rows.txt
%   octave-cli --no-gui --eval "rows_file = 'rows.txt'; source('tests/external/fit.m')"
%
% `load` of the export must define X (rows x features) and y (0, 0.5, 1);
% the writer also adds game, ply (column vectors) and features (the column
% names as a char matrix), which are checked when present.
%
% The fit: decisive rows only (y ~= 0.5), no intercept, maximum likelihood
% by Newton's method from θ = 0:
%   h = σ(Xθ),  g = X'(h − y),  H = X' diag(h(1 − h)) X,  θ ← θ − H \ g
% until max|step| < 1e-12. Standard errors: sqrt(diag(inv(H))) at the final θ.
%
% Output: one result per line, `key v1 v2 ...`, single spaces, numbers with
% 10 significant digits (%.10g), the same keys as fit.R where they overlap:
%   features   the column names, from the file (or F1 F2 ... if absent)
%   rows       all rows, decisive rows, draws
%   coef / se / norm (= 100 θ / θ_1) / loglik (log-likelihood, mean NLL)
%   iterations Newton steps taken, and the last step's max |step|
%   ok         last line: the script ran to the end
% Octave 7 may print "error: ignoring const execution_exception& while
% preparing to exit" on stderr at exit; it is an upstream Octave bug
% (savannah #62515), harmless: the exit status stays 0.

1;  % a script file, not a function file

if ~exist('rows_file', 'var')
  args = argv();
  if numel(args) < 1
    error('usage: octave-cli fit.m rows.txt');
  end
  rows_file = args{end};
end

S = load(rows_file);
if ~isfield(S, 'X') || ~isfield(S, 'y')
  error('%s does not define X and y', rows_file);
end
X = S.X;
y = S.y(:);
[n, k] = size(X);
if numel(y) ~= n
  error('X has %d rows but y has %d', n, numel(y));
end
if ~all(y == 0 | y == 0.5 | y == 1)
  error('y must be 0, 0.5 or 1');
end
for f = {'game', 'ply'}
  if isfield(S, f{1}) && numel(S.(f{1})) ~= n
    error('%s has %d elements, X has %d rows', f{1}, numel(S.(f{1})), n);
  end
end
if isfield(S, 'features')
  if ~ischar(S.features) || rows(S.features) ~= k
    error('features must be a char matrix with one row per column of X');
  end
  names = cellstr(S.features);   % cellstr drops the right padding
else
  names = arrayfun(@(j) sprintf('F%d', j), 1:k, 'UniformOutput', false);
end

keep = (y ~= 0.5);
Xd = X(keep, :);
yd = y(keep);

theta = zeros(k, 1);
for it = 1:100
  h = 1 ./ (1 + exp(-Xd * theta));
  g = Xd' * (h - yd);
  H = Xd' * (Xd .* (h .* (1 - h)));
  step = H \ g;
  theta = theta - step;
  if max(abs(step)) < 1e-12
    break;
  end
end
if max(abs(step)) >= 1e-12
  error('Newton did not converge in %d steps', it);
end

% Hessian and log-likelihood at the final θ.
s = Xd * theta;
h = 1 ./ (1 + exp(-s));
H = Xd' * (Xd .* (h .* (1 - h)));
se = sqrt(diag(inv(H)));
% log σ(s) = −softplus(−s), log(1 − σ(s)) = −softplus(s), computed stably.
softplus = @(z) max(z, 0) + log1p(exp(-abs(z)));
ll = -sum(yd .* softplus(-s) + (1 - yd) .* softplus(s));

line = @(key, v) printf('%s%s\n', key, sprintf(' %.10g', v));
printf('features%s\n', sprintf(' %s', names{:}));
printf('rows %d %d %d\n', n, numel(yd), sum(~keep));
line('coef', theta);
line('se', se);
line('norm', 100 * theta / theta(1));
line('loglik', [ll, -ll / numel(yd)]);
printf('iterations %d %.3g\n', it, max(abs(step)));
printf('ok\n');
