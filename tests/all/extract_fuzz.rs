//! Mutated and truncated PGN must never make extraction panic or hang.

use proptest::prelude::*;

use pgntune::pgn::extract::NoProgress;
use pgntune::pgn::{ExtractConfig, extract};

use crate::common::memory;

const SEED_PGN: &str = r#"[Event "seed"]
[Site "?"]
[SetUp "1"]
[FEN "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"]
[Result "1-0"]

1. O-O-O { a comment { not nested } } Nxe4 $1 (1... O-O 2. Kb1) 2. Nxe4 b3!? ; rest of line
3. axb3 Bxe2 4. Qxe2 Nxd5 5. Nc6 dxc6 6. Qxe7+ Kxe7 7. Bg5+ f6 1-0

[Event "960"]
[Variant "fischerandom"]
[SetUp "1"]
[FEN "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"]
[Result "1/2-1/2"]

9. g3 c4 10. dxc4 Qc7 11. Nd3 Z0 12. -- *
"#;

/// One edit of the seed text.
#[derive(Clone, Debug)]
enum Edit {
    Truncate(usize),
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Flip(usize, u8),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let n = SEED_PGN.len();
    prop_oneof![
        (0..n).prop_map(Edit::Truncate),
        (0..n, 0..40usize).prop_map(|(a, l)| Edit::Delete(a, l)),
        (0..n, proptest::collection::vec(prop_oneof![any::<u8>(), Just(b'{'), Just(b'['), Just(b'"'), Just(b'('), Just(b'\n')], 1..12))
            .prop_map(|(a, b)| Edit::Insert(a, b)),
        (0..n, any::<u8>()).prop_map(|(a, b)| Edit::Flip(a, b)),
        (0..n, 0..200usize).prop_map(|(a, l)| Edit::Duplicate(a, l)),
    ]
}

fn apply(edits: &[Edit]) -> Vec<u8> {
    let mut text = SEED_PGN.as_bytes().to_vec();
    for e in edits {
        let len = text.len();
        match e {
            Edit::Truncate(at) => text.truncate((*at).min(len)),
            Edit::Delete(at, l) => {
                let a = (*at).min(len);
                text.drain(a..(a + l).min(len));
            }
            Edit::Insert(at, bytes) => {
                let a = (*at).min(len);
                text.splice(a..a, bytes.iter().copied());
            }
            Edit::Flip(at, b) if len > 0 => text[*at % len] = *b,
            Edit::Flip(..) => {}
            Edit::Duplicate(at, l) => {
                let a = (*at).min(len);
                let piece = text[a..(a + l).min(len)].to_vec();
                text.splice(a..a, piece);
            }
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_pgn_never_panics(edits in proptest::collection::vec(edit(), 1..6), threads in 1usize..3) {
        let text = apply(&edits);
        let input = pgntune::pgn::InputSource::Memory { name: "fuzz.pgn".into(), data: text.into() };
        let config = ExtractConfig { threads, fen: true, tags: vec!["Event".into()], ..ExtractConfig::default() };
        let mut rows = 0usize;
        let stats = extract(&[input], &config, &NoProgress, |b| { rows += b.len(); Ok(()) });
        // Plain text in memory cannot fail to read; every outcome is counted.
        let stats = stats.expect("in-memory PGN never fails to read");
        prop_assert_eq!(stats.rows as usize, rows);
        prop_assert_eq!(stats.games_read, stats.games_used + stats.games_skipped());
    }
}

#[test]
fn the_unmutated_seed_is_read_as_expected() {
    let config = ExtractConfig::default();
    let (stats, _) = crate::common::extract_all(&[memory("seed.pgn", SEED_PGN)], &config);
    // Game 1 (Kiwipete set-up, nested comment read as a comment that ends at
    // the first brace) is cut at 6.Qxe7+, which the knight on e4 blocks;
    // game 2 (Chess960) is cut at the null move Z0 (ply 6; shown as --),
    // and its Result tag (a draw) is not its marker (`*`): the tag is used.
    assert_eq!((stats.games_read, stats.games_used, stats.games_cut, stats.result_disagreements), (2, 2, 2, 1));
    let problems: Vec<String> = stats.problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        problems,
        [
            "seed.pgn: game 1, ply 11: illegal move 'Qxe7+'",
            "seed.pgn: game 2: [Result \"1/2-1/2\"] disagrees with the result marker * at the end of the moves; the tag is used",
            "seed.pgn: game 2, ply 6: null move '--'"
        ]
    );
}
