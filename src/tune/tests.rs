//! The library call without the command line: the fitter follows from the
//! layout and the options, and the observer hears of each stage in order.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::*;
use crate::fit::sparse::ScaleK;
use crate::pgn::extract::NoProgress;
use crate::play::state::MatchState;

/// Records the stages it hears of.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    fn push(&self, stage: &str) {
        self.0.lock().unwrap().push(stage.to_string());
    }
    fn stages(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

struct Silent;
impl MatchProgress for Silent {
    fn update(&self, _: &MatchState) {}
}

impl TuneObserver for Recorder {
    fn reading(&self) -> &dyn Progress {
        &NoProgress
    }
    fn extracted(&self, _: &ExtractStats) {
        self.push("extracted");
    }
    fn checked(&self, _: &TuneReport, _: &[Implausible]) {
        self.push("checked");
    }
    fn fitted(&self, fitted: &Fitted) -> std::io::Result<()> {
        self.push(match fitted {
            Fitted::Article { .. } => "fitted article",
            Fitted::WholeEvaluation { .. } => "fitted whole",
        });
        Ok(())
    }
    fn proving(&self, _: u64, _: u64) -> Box<dyn MatchProgress + '_> {
        Box::new(Silent)
    }
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/selfplay.pgn.zst")
}

fn job(sets: &str, options: FitOptions, weights_out: Option<PathBuf>) -> TuneJob {
    let extract = ExtractConfig { layout: FeatureLayout::parse(sets).unwrap(), ..ExtractConfig::default() };
    TuneJob {
        input: TuneInput::Games { sources: vec![InputSource::from_arg(sample().to_str().unwrap())], extract },
        options,
        outputs: TuneOutputs { weights_out, name: "sample".into(), ..TuneOutputs::default() },
        verify: None,
    }
}

#[test]
fn material_goes_to_the_articles_fitter_and_the_weights_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.toml");
    let recorder = Recorder::default();
    let outcome = run(&job("material", FitOptions::new(), Some(out.clone())), &recorder).unwrap();
    let Fitted::Article { report, features } = &outcome.fitted else { panic!("the article's fitter") };
    assert_eq!(features, &["material"]);
    // The knight is worth more than the pawn in any sane fit of these games.
    let values = report.values.as_ref().unwrap();
    assert!(values[1] > 2.0 * values[0], "{values:?}");
    assert_eq!(recorder.stages(), ["extracted", "fitted article"]);
    let written = crate::weights::Weights::load(&out).unwrap();
    assert_eq!(written.name, "sample");
}

#[test]
fn a_tapered_layout_or_an_option_of_the_tuner_goes_to_the_whole_evaluation_tuner() {
    for (sets, options) in [("material_tapered", FitOptions::new()), ("material", FitOptions { k: ScaleK::Fixed(1.0), ..FitOptions::new() })] {
        let recorder = Recorder::default();
        let outcome = run(&job(sets, FitOptions { standard_errors: false, ..options }, None), &recorder).unwrap();
        assert!(matches!(outcome.fitted, Fitted::WholeEvaluation { .. }), "{sets}");
        assert_eq!(recorder.stages(), ["extracted", "checked", "fitted whole"], "{sets}");
        assert!(outcome.verdict.is_none());
    }
}

#[test]
fn options_the_chosen_fitter_lacks_are_refused_before_any_game_is_read() {
    let recorder = Recorder::default();
    let bootstrap = FitOptions { bootstrap: Some(10), ..FitOptions::new() };
    let err = run(&job("material_tapered", bootstrap, None), &recorder).unwrap_err();
    assert!(err.to_string().contains("--bootstrap"), "{err}");
    let adam = FitOptions { solver: Solver::Adam { epochs: 1, batch: 8, lr: 1.0 }, draws: crate::fit::DrawMode::Ordinal, ..FitOptions::new() };
    let err = run(&job("material", adam, None), &recorder).unwrap_err();
    assert!(err.to_string().contains("--draws ordinal"), "{err}");
    assert!(recorder.stages().is_empty(), "{:?}", recorder.stages());
}
