//! The collections of an imbalance analysis: PGN inputs (files or folders
//! of them) extracted with the analysis' layout, or datasets that have it.

use std::path::{Path, PathBuf};

use super::{AnalyzeError, ImbalanceConfig, LAYOUT, layout};
use crate::analysis::run::{ReadObserver, is_dataset, stem};
use crate::dataset::load::{LoadOptions, load_positions};
use crate::dataset::positions::Positions;
use crate::pgn::{ExtractConfig, ExtractStats, InputSource, extract};

/// The positions of one collection, as read.
#[derive(Clone, Debug)]
pub struct Collection {
    /// Its name: an input's stem (a folder's name), or `N inputs`.
    pub name: String,
    /// The positions, with game ids unique over its inputs.
    pub positions: Positions,
    /// Per PGN input (a folder counts as one), what extraction found.
    pub reads: Vec<(String, ExtractStats)>,
    /// PGN and dataset files read.
    pub files: usize,
}

/// Game ids of different inputs of one collection must differ: the input's
/// index goes above the game's number (as in [`super::run`]).
const GAME_BITS: u32 = 40;

/// The PGN files under `dir`, recursively, in path order: names ending in
/// `.pgn` or with `.pgn.` before a compression suffix (`.pgn.zst`).
pub fn pgn_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
                if name.ends_with(".pgn") || name.contains(".pgn.") {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Reads the collections of `config`: PGN through extraction with the
/// analysis' layout, datasets as they are (their columns must be the layout's).
pub fn read(config: &ImbalanceConfig, observer: &dyn ReadObserver) -> Result<Vec<Collection>, AnalyzeError> {
    if config.compare && config.inputs.len() < 2 {
        return Err(AnalyzeError::Invalid("comparing needs two inputs or more (one per collection)".into()));
    }
    let read = ExtractConfig { layout: layout(), ..config.read.clone() };
    let groups: Vec<Vec<&String>> =
        if config.compare { config.inputs.iter().map(|i| vec![i]).collect() } else { vec![config.inputs.iter().collect()] };
    let mut collections = Vec::new();
    for group in groups {
        let name = if group.len() == 1 { stem(group[0].trim_end_matches('/')) } else { format!("{} inputs", group.len()) };
        let mut collection =
            Collection { name, positions: Positions::new(read.layout.clone()).expect("a small layout"), reads: Vec::new(), files: 0 };
        for (n, input) in group.into_iter().enumerate() {
            let base = (n as u64) << GAME_BITS;
            if is_dataset(input) {
                use crate::dataset::Format;
                if matches!(Format::from_path(Path::new(input)), Some(Format::Svm | Format::Ijv)) {
                    let reason = format!(
                        "stores no phase, which the analysis needs; extract to .csv, .tsv or .parquet with --features {LAYOUT}, or give the PGN"
                    );
                    return Err(AnalyzeError::Input { input: input.clone(), reason });
                }
                let options = LoadOptions { epd_layout: read.layout.clone(), strict: false };
                let (positions, report) = load_positions(&[input], &options)?;
                // Its covariance counts positions and games one by one.
                if positions.is_weighted() {
                    let reason =
                        "holds merged rows (wins, draws and losses counts), which the imbalance analysis cannot count by game; extract the PGN"
                            .into();
                    return Err(AnalyzeError::Input { input: input.clone(), reason });
                }
                if positions.layout() != &read.layout {
                    let reason =
                        format!("has the features '{}'; the analysis needs '{LAYOUT}' (extract with --features {LAYOUT})", positions.layout().spec());
                    return Err(AnalyzeError::Input { input: input.clone(), reason });
                }
                // The unit is the pawn at the rows' mean phase: a row with
                // equal material has no phase in its features, and taking
                // it as 0 made every value about 11 times too small.
                if report.without_phase > 0 {
                    let reason = format!(
                        "{} of its {} rows have no phase (equal material, and the file has no 'phase' column); \
                         extract it again to .csv, .tsv or .parquet with --features {LAYOUT} (which store the phase) or give the PGN",
                        report.without_phase,
                        positions.len()
                    );
                    return Err(AnalyzeError::Input { input: input.clone(), reason });
                }
                collection.positions.append(&positions, base);
                collection.files += 1;
                continue;
            }
            let path = Path::new(input);
            let sources: Vec<InputSource> = if input != "-" && path.is_dir() {
                let files = pgn_files(path).map_err(|e| AnalyzeError::Input { input: input.clone(), reason: e.to_string() })?;
                if files.is_empty() {
                    return Err(AnalyzeError::Input { input: input.clone(), reason: "no PGN files in this folder".into() });
                }
                files.into_iter().map(InputSource::File).collect()
            } else {
                vec![InputSource::from_arg(input)]
            };
            collection.files += sources.len();
            let size = sources.iter().map(InputSource::size_hint).sum::<Option<u64>>();
            let progress = observer.progress(input, size);
            let positions = &mut collection.positions;
            let stats = extract(&sources, &read, progress.as_ref(), |batch| {
                positions.push_batch(batch, base);
                Ok(())
            })?;
            if stats.found_no_game() {
                return Err(AnalyzeError::Input { input: input.clone(), reason: "no PGN game found (not a PGN file?)".into() });
            }
            collection.reads.push((input.clone(), stats));
        }
        collection.positions.shrink_to_fit();
        collections.push(collection);
    }
    Ok(collections)
}
