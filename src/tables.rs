//! Weights as people and engines read them: piece-square tables as boards,
//! the other terms as small tables (`pgntune weights show`), and source
//! code an engine author can paste (`--emit rust|c|json`): named arrays of
//! (middlegame, endgame) pairs in whole centipawns, like the output of
//! Texel tuners.

use std::fmt::Write as _;
use std::str::FromStr;

use serde::Serialize;
use shakmaty::Square;

use crate::features::{FeatureLayout, FeatureSet, Pst, UnknownFeatureSet};
use crate::json::Object;
use crate::weights::Weights;

/// A language `--emit` writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Language {
    /// Rust `const` arrays of `(i32, i32)`.
    Rust,
    /// C `static const int` arrays of `{mg, eg}`.
    C,
    /// One JSON object: set → term → `[mg, eg]`.
    Json,
}

impl FromStr for Language {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "rust" | "rs" => Ok(Language::Rust),
            "c" => Ok(Language::C),
            "json" => Ok(Language::Json),
            other => Err(format!("unknown language '{other}' (use rust, c or json)")),
        }
    }
}

/// One set's values: term names with (middlegame, endgame) centipawns.
struct SetValues {
    set: FeatureSet,
    terms: Vec<(String, f64, f64)>,
}

fn values_of(weights: &Weights) -> Result<Vec<SetValues>, UnknownFeatureSet> {
    let layout: FeatureLayout = weights.layout()?;
    Ok(layout
        .sets()
        .map(|set| {
            let terms = set
                .terms()
                .iter()
                .map(|t| {
                    if set.tapered() {
                        (t.clone(), weights.centipawns(&format!("mg_{t}")), weights.centipawns(&format!("eg_{t}")))
                    } else {
                        let v = weights.centipawns(t);
                        (t.clone(), v, v)
                    }
                })
                .collect();
            SetValues { set, terms }
        })
        .collect())
}

/// A board of 64 values from white's side, rank 8 at the top.
fn board(out: &mut String, title: &str, values: &[f64]) {
    let _ = writeln!(out, "  {title}");
    for rank in (0..8).rev() {
        let _ = write!(out, "   {} ", rank + 1);
        for file in 0..8 {
            let _ = write!(out, "{:>5.0}", values[rank * 8 + file]);
        }
        out.push('\n');
    }
    let _ = writeln!(out, "        a    b    c    d    e    f    g    h");
}

/// Every value of `weights`, readable: boards for piece-square tables,
/// tables for the rest (centipawns; a tapered term's middlegame and endgame
/// values).
pub fn show(weights: &Weights) -> Result<String, UnknownFeatureSet> {
    let mut out = String::new();
    if let Some(terms) = custom_values(weights)? {
        let _ = writeln!(out, "{}: an engine's own terms, tuned on a trace (centipawns)\n", weights.name);
        let width = terms.iter().map(|t| t.0.len()).max().unwrap_or(4).max(4);
        let _ = writeln!(out, "  {:<width$} {:>8} {:>8}", "term", "mg", "eg");
        for (name, tapered, mg, eg) in &terms {
            if *tapered {
                let _ = writeln!(out, "  {name:<width$} {mg:>8.1} {eg:>8.1}");
            } else {
                let _ = writeln!(out, "  {name:<width$} {mg:>8.1}");
            }
        }
        return Ok(out);
    }
    let _ = writeln!(out, "{}: {} (centipawns)", weights.name, weights.features.join(", "));
    for sv in values_of(weights)? {
        let _ = writeln!(out, "\n[{}] {}", sv.set.name(), sv.set.meaning());
        if sv.set == FeatureSet::Pst {
            for (r, role) in Pst::ROLES.iter().enumerate() {
                let rows = &sv.terms[r * 64..(r + 1) * 64];
                let mg: Vec<f64> = rows.iter().map(|t| t.1).collect();
                let eg: Vec<f64> = rows.iter().map(|t| t.2).collect();
                board(&mut out, &format!("{} middlegame", role.upper_char()), &mg);
                board(&mut out, &format!("{} endgame", role.upper_char()), &eg);
            }
            continue;
        }
        let width = sv.terms.iter().map(|t| t.0.len()).max().unwrap_or(4).max(4);
        if sv.set.tapered() {
            let _ = writeln!(out, "  {:<width$} {:>8} {:>8}", "term", "mg", "eg");
            for (t, mg, eg) in &sv.terms {
                let _ = writeln!(out, "  {t:<width$} {mg:>8.1} {eg:>8.1}");
            }
        } else {
            for (t, v, _) in &sv.terms {
                let _ = writeln!(out, "  {t:<width$} {v:>8.1}");
            }
        }
    }
    Ok(out)
}

/// An identifier for a set's array.
fn array_name(set: FeatureSet) -> String {
    set.name().to_ascii_uppercase()
}

/// A term of an engine's own: name, tapered, (middlegame, endgame) or (value, value).
type CustomValue = (String, bool, f64, f64);

/// An engine's own terms with their values, when the weights are of such terms.
fn custom_values(weights: &Weights) -> Result<Option<Vec<CustomValue>>, UnknownFeatureSet> {
    let layout = weights.layout()?;
    let Some(terms) = layout.custom_terms() else { return Ok(None) };
    Ok(Some(
        terms
            .names()
            .iter()
            .enumerate()
            .map(|(t, name)| {
                if terms.tapered(t) {
                    (name.clone(), true, weights.centipawns(&format!("mg_{name}")), weights.centipawns(&format!("eg_{name}")))
                } else {
                    let v = weights.centipawns(name);
                    (name.clone(), false, v, v)
                }
            })
            .collect(),
    ))
}

/// A Rust or C identifier for a term name, unique among `taken`.
fn identifier(name: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let mut id: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    if id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    let base = id.clone();
    let mut n = 2;
    while !taken.insert(id.clone()) {
        id = format!("{base}_{n}");
        n += 1;
    }
    id
}

/// An engine's own terms as source code: one constant per term, named
/// after it (a `(middlegame, endgame)` pair when tapered).
fn emit_custom(weights: &Weights, terms: &[CustomValue], language: Language) -> String {
    let round = |v: f64| v.round() as i64;
    let mut out = String::new();
    if language == Language::Json {
        let terms = terms
            .iter()
            .map(|(name, tapered, mg, eg)| {
                (name.as_str(), if *tapered { TermJson::Tapered([round(*mg), round(*eg)]) } else { TermJson::Single(round(*mg)) })
            })
            .collect();
        let json = CustomTermsJson {
            comment: format!("{}: centipawns per term ([middlegame, endgame] when tapered), written by pgntune", weights.name),
            terms,
        };
        return serde_json::to_string_pretty(&json).expect("values serialise") + "\n";
    }
    let rust = language == Language::Rust;
    let _ = writeln!(out, "// {}: centipawns per term ((middlegame, endgame) when tapered), written by pgntune.", weights.name);
    let mut taken = std::collections::HashSet::new();
    for (name, tapered, mg, eg) in terms {
        let id = identifier(name, &mut taken);
        let _ = match (rust, tapered) {
            (true, true) => writeln!(out, "pub const {id}: (i32, i32) = ({}, {}); // {name}", round(*mg), round(*eg)),
            (true, false) => writeln!(out, "pub const {id}: i32 = {}; // {name}", round(*mg)),
            (false, true) => writeln!(out, "static const int {id}[2] = {{{}, {}}}; /* {name} */", round(*mg), round(*eg)),
            (false, false) => writeln!(out, "static const int {id} = {}; /* {name} */", round(*mg)),
        };
    }
    out
}

/// `--emit json` of an engine's own terms: `{"comment", "terms": {name:
/// [mg, eg] or value}}`.
#[derive(Serialize)]
struct CustomTermsJson<'a> {
    comment: String,
    terms: Object<&'a str, TermJson>,
}

/// A term's whole centipawns: `[mg, eg]` when tapered, else one number.
#[derive(Serialize)]
#[serde(untagged)]
enum TermJson {
    Tapered([i64; 2]),
    Single(i64),
}

/// `--emit json` of pgntune's feature sets: set → term → `[mg, eg]`, then
/// `"comment"` last.
#[derive(Serialize)]
struct SetsJson<'a> {
    #[serde(flatten)]
    sets: Object<&'a str, Object<&'a str, [i64; 2]>>,
    comment: String,
}

/// The tuned terms as source code in `language`.
pub fn emit(weights: &Weights, language: Language) -> Result<String, UnknownFeatureSet> {
    if let Some(terms) = custom_values(weights)? {
        return Ok(emit_custom(weights, &terms, language));
    }
    let sets = values_of(weights)?;
    let round = |v: f64| v.round() as i64;
    let mut out = String::new();
    match language {
        Language::Json => {
            let json = SetsJson {
                sets: sets
                    .iter()
                    .map(|sv| (sv.set.name(), sv.terms.iter().map(|(t, mg, eg)| (t.as_str(), [round(*mg), round(*eg)])).collect()))
                    .collect(),
                comment: format!("{}: [middlegame, endgame] centipawns per term, written by pgntune", weights.name),
            };
            out = serde_json::to_string_pretty(&json).expect("values serialise") + "\n";
        }
        Language::Rust | Language::C => {
            let rust = language == Language::Rust;
            let _ = writeln!(out, "// {}: (middlegame, endgame) centipawns per term, written by pgntune.", weights.name);
            for sv in &sets {
                let name = array_name(sv.set);
                let _ = writeln!(out, "\n// {}", sv.set.meaning());
                if sv.set == FeatureSet::Pst {
                    // Per role, squares a1..h8 from the piece's own side.
                    if rust {
                        let _ = writeln!(out, "pub const {name}: [[(i32, i32); 64]; 6] = [");
                    } else {
                        let _ = writeln!(out, "static const int {name}[6][64][2] = {{");
                    }
                    for (r, role) in Pst::ROLES.iter().enumerate() {
                        let _ = writeln!(out, "    // {}", role.upper_char());
                        let _ = writeln!(out, "    {}", if rust { "[" } else { "{" });
                        for rank in 0..8 {
                            let cells: Vec<String> = (0..8)
                                .map(|file| {
                                    let (_, mg, eg) = &sv.terms[r * 64 + rank * 8 + file];
                                    if rust { format!("({}, {})", round(*mg), round(*eg)) } else { format!("{{{}, {}}}", round(*mg), round(*eg)) }
                                })
                                .collect();
                            let _ = writeln!(out, "        {}, // rank {}", cells.join(", "), Square::new((rank * 8) as u32).rank());
                        }
                        let _ = writeln!(out, "    {},", if rust { "]" } else { "}" });
                    }
                    let _ = writeln!(out, "{}", if rust { "];" } else { "};" });
                    continue;
                }
                let n = sv.terms.len();
                if rust {
                    let _ = writeln!(out, "pub const {name}: [(i32, i32); {n}] = [");
                } else {
                    let _ = writeln!(out, "static const int {name}[{n}][2] = {{");
                }
                for (t, mg, eg) in &sv.terms {
                    if rust {
                        let _ = writeln!(out, "    ({}, {}), // {t}", round(*mg), round(*eg));
                    } else {
                        let _ = writeln!(out, "    {{{}, {}}}, /* {t} */", round(*mg), round(*eg));
                    }
                }
                let _ = writeln!(out, "{}", if rust { "];" } else { "};" });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_tables_and_code() {
        let w = crate::presets::full();
        let text = show(&w).unwrap();
        assert!(text.contains("N middlegame"));
        // The pst preset's knight on e4 (22 cp in the middlegame) sits on rank 4, file e.
        let n_board = &text[text.find("N middlegame").unwrap()..];
        let rank4 = n_board.lines().find(|l| l.trim_start().starts_with("4 ")).unwrap();
        assert_eq!(rank4.split_whitespace().nth(5), Some("22"), "{rank4}");
        assert!(text.contains("bishop_pair"));
        let rust = emit(&w, Language::Rust).unwrap();
        assert!(rust.contains("pub const PST: [[(i32, i32); 64]; 6] = ["));
        assert!(rust.contains("pub const BISHOP_PAIR: [(i32, i32); 1] = [\n    (30, 50), // bishop_pair"));
        let c = emit(&w, Language::C).unwrap();
        assert!(c.contains("static const int MATERIAL_TAPERED[5][2] = {"));
        let json: serde_json::Value = serde_json::from_str(&emit(&w, Language::Json).unwrap()).unwrap();
        assert_eq!(json["tempo"]["tempo"], serde_json::json!([15, 5]));
        assert_eq!("RS".parse::<Language>(), Ok(Language::Rust));
        assert!("cobol".parse::<Language>().is_err());
    }
}
