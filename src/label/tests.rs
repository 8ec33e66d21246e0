//! Labels from a search's verdict: white's view, mates, WDL, game over.

use super::*;
use shakmaty::CastlingMode;

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

fn config(resolve_pv: bool, wdl: bool) -> LabelConfig {
    LabelConfig {
        dataset: PathBuf::from("in.epd"),
        output: PathBuf::from("out.epd"),
        layout: FeatureLayout::parse("material").unwrap(),
        teacher: Teacher::Uci { name: "x".into(), program: crate::play::uci_client::UciProgram::default() },
        limits: MoveLimits { depth: Some(1), ..MoveLimits::default() },
        threads: 1,
        wdl,
        resolve_pv,
        sparse_shape: crate::dataset::SparseShape::Compact,
        timeout: Duration::from_secs(1),
        force: false,
    }
}

fn verdict(score: Score, wdl: Option<[u32; 3]>) -> Verdict {
    Verdict { score, wdl, pv: Vec::new(), engine_time: None, reset_time: Duration::ZERO, search_time: Duration::ZERO }
}

#[test]
fn labels_are_from_whites_side() {
    let black_to_move = pos("4k3/8/8/8/8/8/8/Q3K3 b - - 0 1");
    let (entry, _) = entry_of(&black_to_move, &verdict(Score::Cp(-900), None), &config(false, false));
    assert_eq!(entry, Entry::Labelled { label: 900.0, leaf: None });
    let (entry, _) = entry_of(&black_to_move, &verdict(Score::Mate(-3), None), &config(false, false));
    assert_eq!(entry, Entry::Labelled { label: MATE_LABEL, leaf: None });
    // Even odds by WDL are 0 cp; 3:1 is 400·log10(3) for the side to move.
    let (entry, from_wdl) = entry_of(&black_to_move, &verdict(Score::Cp(5), Some([250, 500, 250])), &config(false, true));
    assert_eq!((entry, from_wdl), (Entry::Labelled { label: 0.0, leaf: None }, true));
    let (entry, _) = entry_of(&black_to_move, &verdict(Score::Cp(5), Some([750, 0, 250])), &config(false, true));
    assert_eq!(entry, Entry::Labelled { label: -190.85, leaf: None });
    // A mate is no resolved position.
    let (entry, _) = entry_of(&black_to_move, &verdict(Score::Mate(2), None), &config(true, false));
    assert_eq!(entry, Entry::Skipped("mate score".into()));
    // Positions without moves: checkmate for the side to move, or a draw.
    assert_eq!(game_over(&pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"), &config(false, false)), Entry::Labelled { label: MATE_LABEL, leaf: None });
    assert_eq!(game_over(&pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), &config(false, false)), Entry::Labelled { label: 0.0, leaf: None });
    assert_eq!(game_over(&pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), &config(true, false)), Entry::Skipped("game over".into()));
}
