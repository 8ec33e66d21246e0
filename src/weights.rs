//! Weight files: what `fit --weights-out` writes and the engine reads.
//!
//! A weight file names its feature sets and gives one weight per feature
//! column, plus a `scale`: the engine's evaluation in centipawns is
//! `scale * Σ weight[c] * x[c]`. A fit writes its raw logistic θ with
//! `scale = 100 / θ_P` (so a pawn is worth 100); presets give centipawns
//! directly with `scale = 1`.
//!
//! ```toml
//! # pgntune weights
//! format = 2
//! name = "OpenRating"
//! features = ["material"]
//! scale = 133.6349
//!
//! [weights]
//! P = 0.7483075
//! N = 2.1652058
//! B = 2.5871044
//! R = 3.5972722
//! Q = 8.0732847
//! ```
//!
//! JSON files with the same fields are read too.
//!
//! Every column of the declared feature sets must have a weight, unless the
//! file gives `default = VALUE` (a top-level key, in the same units as the
//! weights): then the columns it does not list weigh that much. A file
//! with `P = 100` alone is refused, naming the first missing column,
//! rather than played with knights, bishops, rooks and queens worth
//! nothing. Values must be finite, within ±[`MAX_CENTIPAWNS`] once
//! scaled, and the material set's piece values positive.
//!
//! A name on the command line (a preset or a file) becomes weights through
//! [`Weights::resolve`], written in [`crate::presets`], which stands on this
//! module: the file format knows nothing of the presets built from it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::atomic::{AtomicFile, OutputError};
use crate::features::custom::{CustomTerms, CustomTermsError, TRACE_SPEC};
use crate::features::{FeatureLayout, FeatureSet, UnknownFeatureSet};

mod output;
pub use output::WeightsOutput;

/// The version of the weight-file format this build writes. Format 2 gives
/// a tapered column's weight as the term's full middlegame (or endgame)
/// value; format 1 (read too) gave it per unit of `count × phase`, 24 times
/// smaller.
pub const FORMAT: u32 = 2;

/// The largest centipawn value (scale × weight) a column may have: a
/// hundred pawns, far beyond any piece; larger values come from broken or
/// mistyped files (`P = 1e300`).
pub const MAX_CENTIPAWNS: f64 = 10_000.0;

/// The value of the `written_by` key that opens a JSON weights file
/// pgntune wrote (readers ignore the key).
pub const JSON_MARK: &str = "pgntune weights: centipawns = scale * sum(weight * feature)";

/// Feature weights with their scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// Always [`FORMAT`].
    pub format: u32,
    /// A name for reports (preset name, or where the weights came from).
    #[serde(default)]
    pub name: String,
    /// Feature-set names, in order (see [`FeatureLayout::parse`]); for an
    /// engine's own terms `trace` and then `NAME tapered` or `NAME single`
    /// per term (see [`crate::dataset::trace`]).
    pub features: Vec<String>,
    /// Centipawns per unit of `weight · x`.
    pub scale: f64,
    /// The fitted intercept, if the model had one (white's first-move edge,
    /// in the same units as the weights). The engine does not use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intercept: Option<f64>,
    /// The weight of every column of the declared sets that `weights` does
    /// not list; without it, every column must be listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
    /// Weight per feature column; columns not listed weigh 0.
    #[serde(deserialize_with = "unique_weights")]
    pub weights: BTreeMap<String, f64>,
}

/// The `weights` table, refusing a column given twice: JSON allows a
/// repeated key and serde kept the last value without a word (TOML's
/// parser refuses one itself).
fn unique_weights<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<BTreeMap<String, f64>, D::Error> {
    struct Unique;
    impl<'de> serde::de::Visitor<'de> for Unique {
        type Value = BTreeMap<String, f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a table of column names and numbers")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((column, value)) = map.next_entry::<String, f64>()? {
                if out.insert(column.clone(), value).is_some() {
                    return Err(serde::de::Error::custom(format!("the weight of '{column}' is given twice")));
                }
            }
            Ok(out)
        }
    }
    deserializer.deserialize_map(Unique)
}

/// Why weights could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// Not a preset name, and no file of that name (for names that look
    /// like files, the I/O error is reported instead).
    #[error("'{spec}' is not a preset (presets: {presets}) nor a weights file")]
    NotFound {
        /// What was asked for.
        spec: String,
        /// The preset names.
        presets: String,
    },
    /// A preset's name that is also a file in the current folder.
    #[error(
        "'{spec}' is both a preset and a file in the current folder; write ./{spec} for the file, or rename the file (or run elsewhere) for the preset"
    )]
    Ambiguous {
        /// What was asked for.
        spec: String,
    },
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML/JSON of the expected shape.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The file names a feature set this build does not know.
    #[error("{path}: {source}")]
    Features {
        /// The file.
        path: String,
        /// The unknown set.
        #[source]
        source: UnknownFeatureSet,
    },
    /// A weight for a column that none of the file's feature sets has.
    #[error("{path}: weight for unknown feature column '{column}' (the sets {sets} have: {known})")]
    UnknownColumn {
        /// The file.
        path: String,
        /// The column.
        column: String,
        /// The file's feature sets.
        sets: String,
        /// Their columns.
        known: String,
    },
    /// A weight or the scale is not a finite number.
    #[error("{path}: '{what}' is not a finite number")]
    NotFinite {
        /// The file.
        path: String,
        /// Which value.
        what: String,
    },
    /// A column of the declared sets has no weight and there is no default.
    #[error(
        "{path}: no weight for column '{column}' of the feature set '{set}' (give every column of {set}: {known}; or a top-level `default = VALUE` for the columns not listed)"
    )]
    MissingColumn {
        /// The file.
        path: String,
        /// The column.
        column: String,
        /// Its set.
        set: String,
        /// The set's columns.
        known: String,
    },
    /// A value is out of its range.
    #[error("{path}: '{what}' = {} {why}", short(*.value))]
    OutOfRange {
        /// The file.
        path: String,
        /// Which value.
        what: String,
        /// The value as given.
        value: f64,
        /// What is wrong with it.
        why: String,
    },
}

/// The largest weights file read, in bytes.
const MAX_FILE: u64 = 16 << 20;

/// The built-in presets: name, one-line description, P N B R Q in centipawns.
pub const PRESETS: &[(&str, &str, [f64; 5])] = &[
    ("classical", "the textbook 1-3-3-5-9 scale", {
        let c = crate::features::Material::CLASSICAL_VALUES;
        [c[0] as f64, c[1] as f64, c[2] as f64, c[3] as f64, c[4] as f64]
    }),
    ("kaissa", "the Soviet program's book values: minor pieces 350, rook 500, queen 1000", [100.0, 350.0, 350.0, 500.0, 1000.0]),
    ("pgnlearn2015", "the 2015 pgnlearn article's fitted values", [100.0, 288.0, 345.0, 480.0, 1077.0]),
    ("flat", "every piece 100 (a deliberately bad baseline)", [100.0, 100.0, 100.0, 100.0, 100.0]),
];

impl Weights {
    /// Weights in centipawns (`scale = 1`) for the material columns.
    pub fn material(name: &str, cp: [f64; 5]) -> Weights {
        let columns = FeatureSet::Material.columns();
        Weights {
            format: FORMAT,
            name: name.to_string(),
            features: vec![FeatureSet::Material.name().to_string()],
            scale: 1.0,
            intercept: None,
            default: None,
            weights: columns.into_iter().zip(cp).collect(),
        }
    }

    /// A built-in preset by name.
    pub fn preset(name: &str) -> Option<Weights> {
        PRESETS.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(name)).map(|&(n, _, cp)| Weights::material(n, cp))
    }

    /// Reads a TOML or JSON weights file and checks it.
    pub fn load(path: &Path) -> Result<Weights, WeightsError> {
        // `-` is standard input (a weights file piped from another command).
        let from_stdin = path == Path::new("-");
        let name = if from_stdin { "standard input".to_string() } else { path.display().to_string() };
        let parse_err = |message: String| WeightsError::Parse { path: name.clone(), message };
        // Read at most one byte past the limit: an endless file (/dev/zero)
        // or a huge one is refused rather than read until memory runs out.
        let mut bytes = Vec::new();
        let reader: std::io::Result<Box<dyn std::io::Read>> =
            if from_stdin { Ok(Box::new(std::io::stdin().lock())) } else { std::fs::File::open(path).map(|f| Box::new(f) as Box<dyn std::io::Read>) };
        reader
            .and_then(|file| std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_FILE + 1), &mut bytes))
            .map_err(|source| WeightsError::Io { path: name.clone(), source })?;
        if from_stdin && bytes.is_empty() {
            return Err(parse_err("is empty: no weights to read".into()));
        }
        if bytes.len() as u64 > MAX_FILE {
            return Err(parse_err("not a weights file (larger than 16 MiB; pgntune's largest weights file is well under 1 MiB)".into()));
        }
        // A binary file (a dataset, a PGN archive) is named as what it is not.
        let text =
            String::from_utf8(bytes).map_err(|_| parse_err("not a weights file (pgntune writes TOML or JSON text; this is not text)".into()))?;
        // The extension decides where it says TOML or JSON; otherwise the
        // first character does. A file of neither kind (a CSV, say) is
        // called what it is rather than answered with a TOML parse error.
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        let json = ext.as_deref() == Some("json") || (ext.as_deref() != Some("toml") && text.trim_start().starts_with('{'));
        let mut weights: Weights = if json {
            serde_json::from_str(&text).map_err(|e| parse_err(format!("not valid JSON weights: {e}")))?
        } else {
            toml::from_str(&text).map_err(|e| match ext.as_deref() {
                Some("toml") => parse_err(toml_message(&text, &e)),
                _ => parse_err(format!("not a weights file (pgntune writes TOML or JSON): {}", toml_message(&text, &e))),
            })?
        };
        if weights.format != FORMAT && weights.format != 1 {
            return Err(parse_err(format!("format {} is not supported (this build reads formats 1 and {FORMAT})", weights.format)));
        }
        if weights.name.is_empty() {
            weights.name =
                if from_stdin { "weights".to_string() } else { path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default() };
        }
        // The limits hold for the values the engine plays: a format-1
        // tapered weight is checked after it is made 24 times larger (it was
        // checked before, and `mg_tempo = 9000` played as 216,000).
        let note =
            if weights.format == 1 { " (format 1: tapered weights, the default's too, count 24 times; see docs/src/fit-and-tune.md)" } else { "" };
        let as_written = weights.clone();
        if weights.format == 1 {
            weights.upgrade_from_format_1();
        }
        weights.check(&name, note).map_err(|e| match e {
            // The value as the file gives it (the centipawns say the rest).
            WeightsError::OutOfRange { path, what, value, why } if !note.is_empty() => {
                let written = if what == "default" { as_written.default } else { as_written.weights.get(&what).copied().or(as_written.default) };
                WeightsError::OutOfRange { path, value: written.unwrap_or(value), what, why }
            }
            e => e,
        })?;
        Ok(weights)
    }

    /// Checks the weights as [`Weights::load`] does (for weights that came
    /// another way, such as inside a match state).
    pub fn validate(&self) -> Result<(), WeightsError> {
        let what = if self.name.is_empty() { "weights".to_string() } else { format!("weights '{}'", self.name) };
        self.check(&what, "")
    }

    /// Checks every rule; `note` is added to a value found out of range.
    fn check(&self, path: &str, note: &str) -> Result<(), WeightsError> {
        if let Some(Err(e)) = self.custom_terms() {
            return Err(WeightsError::Parse { path: path.to_string(), message: format!("the trace's terms in 'features': {e}") });
        }
        let layout = self.layout().map_err(|source| WeightsError::Features { path: path.to_string(), source })?;
        if layout.is_empty() {
            // No set evaluates nothing: the engine would play on its
            // piece-square fallback and every score would be meaningless.
            return Err(WeightsError::Parse {
                path: path.to_string(),
                message: "'features' names no feature set (for example features = [\"material\"])".into(),
            });
        }
        let known = layout.columns();
        for column in self.weights.keys() {
            if !known.contains(column) {
                return Err(WeightsError::UnknownColumn {
                    path: path.to_string(),
                    column: column.clone(),
                    sets: self.features.join(","),
                    known: known.join(" "),
                });
            }
        }
        let not_finite = |what: &str| WeightsError::NotFinite { path: path.to_string(), what: what.to_string() };
        let out_of_range =
            |what: &str, value: f64, why: String| WeightsError::OutOfRange { path: path.to_string(), what: what.to_string(), value, why };
        if !self.scale.is_finite() {
            return Err(not_finite("scale"));
        }
        if self.scale == 0.0 {
            return Err(out_of_range("scale", self.scale, "makes every evaluation 0".into()));
        }
        for (what, value) in self
            .weights
            .iter()
            .map(|(c, v)| (c.as_str(), *v))
            .chain(self.default.map(|d| ("default", d)))
            .chain(self.intercept.map(|i| ("intercept", i)))
        {
            if !value.is_finite() {
                return Err(not_finite(what));
            }
            let cp = self.scale * value;
            if !cp.is_finite() || cp.abs() > MAX_CENTIPAWNS {
                return Err(out_of_range(
                    what,
                    value,
                    format!("is {} centipawns (scale {} × weight); at most ±{MAX_CENTIPAWNS} are allowed{note}", short(cp), short(self.scale)),
                ));
            }
        }
        if layout.is_custom()
            && self.default.is_none()
            && let Some(missing) = layout.columns().iter().find(|c| !self.weights.contains_key(*c))
        {
            return Err(WeightsError::MissingColumn {
                path: path.to_string(),
                column: missing.clone(),
                set: TRACE_SPEC.to_string(),
                known: known.join(" "),
            });
        }
        for set in layout.sets() {
            let columns = set.columns();
            if self.default.is_none()
                && let Some(missing) = columns.iter().find(|c| !self.weights.contains_key(*c))
            {
                return Err(WeightsError::MissingColumn {
                    path: path.to_string(),
                    column: missing.clone(),
                    set: set.name().to_string(),
                    known: columns.join(" "),
                });
            }
            // Piece values: a non-positive one makes the engine give its pieces away.
            if set == FeatureSet::Material {
                for column in &columns {
                    let cp = self.centipawns(column);
                    if cp <= 0.0 {
                        let value = self.weights.get(column).copied().or(self.default).unwrap_or(0.0);
                        return Err(out_of_range(column, value, format!("gives the piece {} centipawns; piece values must be positive", short(cp))));
                    }
                }
            }
        }
        Ok(())
    }

    /// Format 1 weighed tapered columns per unit of `count × phase`; format
    /// 2 per unit of `count × phase / 24`. One rule for every tapered
    /// column: its value, listed or the default, is 24 times larger in
    /// format 2 (the default stays for the untapered columns). Scaling the
    /// listed values alone showed `default = 10` as 10 beside a listed 10
    /// shown as 240.
    fn upgrade_from_format_1(&mut self) {
        if let Ok(layout) = self.layout() {
            let tapered: Vec<String> = layout.sets().filter(|s| s.tapered()).flat_map(|s| s.columns()).collect();
            for column in tapered {
                let value = self.weights.get(&column).copied().or(self.default);
                if let Some(w) = value {
                    self.weights.insert(column, w * f64::from(crate::features::MAX_PHASE));
                }
            }
        }
        self.format = FORMAT;
    }

    /// The feature layout the weights are for: feature sets, or an
    /// engine's own terms (`features = ["trace", "NAME tapered|single", ...]`,
    /// as weights tuned on a trace are written).
    pub fn layout(&self) -> Result<FeatureLayout, UnknownFeatureSet> {
        match self.custom_terms() {
            // Loaded weights were checked (see `check`); others name the problem here.
            Some(Err(e)) => Err(UnknownFeatureSet { name: format!("{TRACE_SPEC} ({e})"), known: TRACE_SPEC.to_string() }),
            Some(Ok(terms)) => Ok(FeatureLayout::custom(terms)),
            None => FeatureLayout::parse(&self.features.join(",")),
        }
    }

    /// The engine's own terms, when the weights were tuned on a trace.
    fn custom_terms(&self) -> Option<Result<CustomTerms, CustomTermsError>> {
        let (first, declarations) = self.features.split_first()?;
        (first == TRACE_SPEC).then(|| CustomTerms::from_declarations(declarations, |c| self.centipawns(c)))
    }

    /// True for weights of an engine's own terms (tuned on a trace), which
    /// pgntune's engine cannot play.
    pub fn is_custom(&self) -> bool {
        self.features.first().is_some_and(|f| f == TRACE_SPEC)
    }

    /// The value of `column` in centipawns (`scale * weight`); a column not
    /// listed weighs the default, or 0.
    pub fn centipawns(&self, column: &str) -> f64 {
        self.scale * self.weights.get(column).copied().or(self.default).unwrap_or(0.0)
    }

    /// Centipawns per unit of each column of `layout`, in layout order.
    pub fn centipawn_vector(&self, layout: &FeatureLayout) -> Vec<f64> {
        layout.columns().iter().map(|c| self.centipawns(c)).collect()
    }

    /// The file's text: TOML, or JSON when `json` is set.
    pub fn to_text(&self, json: bool) -> String {
        if json {
            // JSON has no comments: the first key says what TOML's first
            // line says, so that pgntune knows its own file (and replaces
            // it) from a user's hand-written one (which it leaves alone).
            let body = serde_json::to_string_pretty(self).expect("weights serialise");
            let rest = body.strip_prefix("{\n").expect("an object, pretty-printed");
            format!("{{\n  \"written_by\": \"{JSON_MARK}\",\n{rest}\n")
        } else {
            format!("# pgntune weights: centipawns = scale * sum(weight * feature)\n{}", toml::to_string(self).expect("weights serialise"))
        }
    }

    /// Writes the weights atomically; JSON for a `.json` path, else TOML.
    pub fn save(&self, path: &Path) -> Result<(), OutputError> {
        let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
        AtomicFile::write_all(path, self.to_text(json).as_bytes())
    }
}

/// A number for a message: in exponent form when it is huge or tiny.
fn short(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e7).contains(&v.abs()) { format!("{v:e}") } else { format!("{v}") }
}

/// A TOML error as one line with its place: "line 3, column 5: invalid
/// number" (toml's own message spans several lines with a drawing).
fn toml_message(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim().replace('\n', " ");
    match error.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_centipawns() {
        let w = Weights::preset("Kaissa").unwrap();
        assert_eq!(w.centipawns("N"), 350.0);
        assert_eq!(w.centipawns("Q"), 1000.0);
        assert_eq!(w.centipawn_vector(&FeatureLayout::default()), [100.0, 350.0, 350.0, 500.0, 1000.0]);
        assert!(Weights::preset("nonsense").is_none());
    }

    #[test]
    fn toml_and_json_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Weights::material("fit", [0.75, 2.17, 2.59, 3.60, 8.07]);
        w.scale = 100.0 / 0.75;
        w.intercept = Some(0.1);
        for name in ["w.toml", "w.json"] {
            let path = dir.path().join(name);
            w.save(&path).unwrap();
            assert_eq!(Weights::load(&path).unwrap(), w, "{name}");
        }
        assert!((Weights::load(&dir.path().join("w.toml")).unwrap().centipawns("P") - 100.0).abs() < 1e-9);
    }

    #[test]
    fn bad_files_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, "format = 1\nfeatures = [\"material\"]\nscale = 1.0\n[weights]\nK = 5.0\n").unwrap();
        let err = Weights::load(&path).unwrap_err().to_string();
        assert!(err.contains("unknown feature column 'K'"), "{err}");
        std::fs::write(&path, "format = 1\nfeatures = [\"psqt\"]\nscale = 1.0\n[weights]\n").unwrap();
        assert!(Weights::load(&path).unwrap_err().to_string().contains("unknown feature set 'psqt'"));
        // No set at all: every evaluation would be the engine's fallback.
        std::fs::write(&path, "format = 2\nname = \"x\"\nfeatures = []\nscale = 1\n[weights]\n").unwrap();
        assert!(Weights::load(&path).unwrap_err().to_string().contains("'features' names no feature set"));
        assert!(matches!(Weights::resolve("no-such-file.toml"), Err(WeightsError::Io { .. })), "a file name gets the file's error");
        assert!(matches!(Weights::resolve("nonsense"), Err(WeightsError::NotFound { .. })));
        // A .json file is read as JSON even when it does not start like it,
        // and a file of neither kind is called so.
        let json = dir.path().join("bad.json");
        std::fs::write(&json, "format = 2\nname = \"x\"").unwrap();
        assert!(Weights::load(&json).unwrap_err().to_string().contains("not valid JSON weights"));
        let csv = dir.path().join("w.csv");
        std::fs::write(&csv, "a,b\n1,2\n").unwrap();
        assert!(Weights::load(&csv).unwrap_err().to_string().contains("not a weights file (pgntune writes TOML or JSON)"));
        let binary = dir.path().join("rows.parquet");
        std::fs::write(&binary, b"PAR1\xff\xfe\x00\x01").unwrap();
        assert!(Weights::load(&binary).unwrap_err().to_string().contains("not a weights file (pgntune writes TOML or JSON text; this is not text)"));
    }

    #[test]
    fn every_column_finite_in_range_and_pieces_positive() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.toml");
        let load = |body: &str| {
            std::fs::write(&path, format!("format = 1\nfeatures = [\"material\"]\n{body}")).unwrap();
            Weights::load(&path).map_err(|e| e.to_string())
        };
        let err = load("scale = 1.0\n[weights]\nP = 100\n").unwrap_err();
        assert!(err.contains("no weight for column 'N'") && err.contains("default = VALUE"), "{err}");
        let w = load("scale = 1.0\ndefault = 300\n[weights]\nP = 100\nQ = 900\n").unwrap();
        assert_eq!(w.centipawn_vector(&FeatureLayout::default()), [100.0, 300.0, 300.0, 300.0, 900.0]);
        let err = load("scale = 1.0\n[weights]\nP = 1e300\nN = 3\nB = 3\nR = 5\nQ = 9\n").unwrap_err();
        assert!(err.contains("'P' = 1e300") && err.contains("at most ±10000"), "{err}");
        let err = load("scale = 1.0\n[weights]\nP = 100\nN = -300\nB = 300\nR = 500\nQ = 900\n").unwrap_err();
        assert!(err.contains("'N'") && err.contains("must be positive"), "{err}");
        let err = load("scale = 0.0\n[weights]\nP = 1\nN = 3\nB = 3\nR = 5\nQ = 9\n").unwrap_err();
        assert!(err.contains("'scale'"), "{err}");
        let err = load("scale = 1.0\n[weights]\nP = 1\nN = 3\n B = \n").unwrap_err();
        assert!(err.contains("line 7, column 6") && !err.contains('\n'), "{err}");
    }
}
