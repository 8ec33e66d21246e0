//! Reading every format back.

use super::*;
use polars::prelude::*;

#[test]
fn mat_and_csv_load_and_bad_lines_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mat = dir.path().join("a.mat");
    std::fs::write(&mat, " 0  0  0  0  0  2\n 1  0  0  0  0  0\n 0  0  0  0  0  2\n").unwrap();
    let rows = load(&[&mat], false).unwrap();
    assert_eq!(rows.columns, ["P", "N", "B", "R", "Q"]);
    assert_eq!(rows.counts, [[0.0, 0.0, 2.0], [1.0, 0.0, 0.0]]);
    assert_eq!(rows.game_count, None);

    let csv = dir.path().join("a.csv");
    std::fs::write(&csv, "a,b,result,game,ply,White\n1,0,1,0,2,\"X, Y\"\n1,0,0.5,1,2,Z\n0,1,0,1,4,Z\n").unwrap();
    let rows = load(&[&csv, &csv], true).unwrap();
    assert_eq!(rows.columns, ["a", "b"]);
    assert_eq!(rows.game_count, Some(4), "game ids of the second file are offset");
    assert_eq!(rows.counts, [[0.0, 2.0, 2.0], [2.0, 0.0, 0.0]]);

    let bad = dir.path().join("bad.mat");
    std::fs::write(&bad, " 0  0  0  0  0  2\n 0  0  0  0  2\n").unwrap();
    assert!(load(&[&bad], false).unwrap_err().to_string().contains("line 2: expected 6 numbers"));
    std::fs::write(&bad, " 0  0  x  0  0  2\n").unwrap();
    assert!(load(&[&bad], false).unwrap_err().to_string().contains("'x' is not an integer"));
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "a,result\n1,1\nfoo,0\n").unwrap();
    assert!(load(&[&bad], false).unwrap_err().to_string().contains("line 3: 'foo' in column 'a' is not a number"));
    std::fs::write(&bad, "a,result\n1,0.7\n").unwrap();
    assert!(load(&[&bad], false).unwrap_err().to_string().contains("result 0.7 is not 0, 0.5 or 1"));
    assert!(load(&[&bad, &mat], false).is_err());
}

/// Extracts a few real games with `layout`, writes them in `format` and
/// reads them back as positions.
fn round_trip(layout: &str, format: crate::dataset::Format, name: &str, labels: bool) -> (RowBatch, Positions) {
    use crate::pgn::{ExtractConfig, InputSource, extract, extract::NoProgress};
    const PGN: &str = "[Result \"1-0\"]\n\n1. e4 {[%eval 0.3]} e5 {[%eval 0.25]} 2. Nf3 {[%eval 0.4]} Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 \
8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 \
19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 22. Bxc4 Nb6 23. Ne5 Rae8 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+ 26. Qxe1 Kxf7 27. Qe3 Qg5 28. Qxg5 hxg5 1-0\n\n\
[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 Nbd7 7. Rc1 c6 8. Bd3 dxc4 9. Bxc4 Nd5 10. Bxe7 Qxe7 1/2-1/2\n";
    let layout = FeatureLayout::parse(layout).unwrap();
    let config = ExtractConfig {
        layout: layout.clone(),
        fen: format == crate::dataset::Format::Epd,
        labels,
        filter: crate::pgn::FilterConfig { emit: crate::pgn::EmitMode::All, ..Default::default() },
        ..ExtractConfig::default()
    };
    let schema = config.schema();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    let mut writer = crate::dataset::create_writer(&path, format, &schema, 2).unwrap();
    let mut all = RowBatch::new(&schema);
    let input = InputSource::Memory { name: "t".into(), data: std::sync::Arc::from(PGN.as_bytes()) };
    extract(&[input], &config, &NoProgress, |b| {
        all.append(b);
        writer.write(b)
    })
    .unwrap();
    writer.finish().unwrap();
    let options = LoadOptions { epd_layout: layout, strict: true };
    let (positions, report) = load_positions(&[&path], &options).unwrap();
    assert_eq!(report, LoadReport::default());
    (all, positions)
}

#[test]
fn every_format_reads_back_the_positions_it_was_given() {
    use crate::dataset::Format;
    let cases = [
        ("material", Format::Mat, "a.mat", false),
        ("material", Format::Csv, "a.csv", true),
        ("material,pst,bishop_pair,tempo", Format::Csv, "b.csv", true),
        ("material_tapered,bishop_pair,tempo", Format::Tsv, "c.tsv", true),
        ("material_tapered,bishop_pair,tempo", Format::Parquet, "d.parquet", true),
        ("material,pst,bishop_pair,tempo", Format::Parquet, "e.parquet", true),
        ("material,pst,bishop_pair,tempo", Format::Octave, "f.txt", false),
        ("material,pst,bishop_pair,tempo", Format::Octave, "f.mat", false),
        ("material,pst,bishop_pair,tempo", Format::Ijv, "g.ijv", true),
        ("material_tapered,pst,bishop_pair,tempo", Format::Svm, "i.svm", true),
        ("material,pst,bishop_pair,tempo", Format::Epd, "h.epd", true),
    ];
    for (layout, format, name, labels) in cases {
        let (rows, positions) = round_trip(layout, format, name, labels);
        assert!(rows.len() > 40, "{name}");
        assert_eq!(positions.len(), rows.len(), "{name}");
        for i in 0..rows.len() {
            let mut want = rows.row_terms(i).to_vec();
            want.sort();
            assert_eq!(positions.terms(i), want, "{name} row {i}");
            if !want.is_empty() && positions.layout().is_tapered() {
                assert_eq!(positions.phase(i), rows.phases[i], "{name} row {i}");
            }
            assert_eq!(positions.score(i) as f64, rows.results[i].score(), "{name} row {i}");
            if format != Format::Mat && format != Format::Epd {
                assert_eq!(positions.game(i), rows.games[i], "{name} row {i}");
            }
            if labels {
                let (a, b) = (positions.eval(i), rows.evals[i]);
                assert!(a == b || (a.is_nan() && b.is_nan()), "{name} row {i}: {a} vs {b}");
            }
        }
        // The positions after plies 2 and 3 carry the comments' labels.
        if labels {
            assert!(positions.labelled() >= 2, "{name}");
        }
    }
}

#[test]
fn foreign_columns_are_not_positions() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("a.csv");
    std::fs::write(&csv, "a,b,result\n1,0,1\n").unwrap();
    let options = LoadOptions { epd_layout: FeatureLayout::default(), strict: false };
    let err = load_positions(&[&csv], &options).unwrap_err().to_string();
    assert!(err.contains("are not pgntune feature sets"), "{err}");
    // Wrong values under the right names.
    std::fs::write(&csv, "P,N,B,R,Q,result\n0.5,0,0,0,0,1\n").unwrap();
    let err = load_positions(&[&csv], &options).unwrap_err().to_string();
    assert!(err.contains("line 2") && err.contains("not a whole count"), "{err}");
}

#[test]
fn octave_text_is_read_whatever_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# Created by pgntune 0.1.0\n# name: X\n# type: matrix\n# rows: 3\n# columns: 2\n 1 0\n 1 0\n 0 1\n\n\n\
# name: y\n# type: matrix\n# rows: 3\n# columns: 1\n 1\n 0.5\n 0\n\n\n# name: game\n# type: matrix\n# rows: 3\n# columns: 1\n 0\n 1\n 1\n\n\n\
# name: ply\n# type: matrix\n# rows: 3\n# columns: 1\n 2\n 4\n 6\n\n\n# name: features\n# type: string\n# elements: 2\n# length: 1\nP\n# length: 1\nN\n\n\n";
    for name in ["rows.mat", "rows.txt"] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let rows = load(&[&path], true).unwrap();
        assert_eq!(rows.columns, ["P", "N"], "{name}");
        assert_eq!(rows.counts, [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], "{name}");
        assert_eq!(rows.game_count, Some(2), "{name}");
    }
    let path = dir.path().join("cut.mat");
    std::fs::write(&path, text.lines().take(7).collect::<Vec<_>>().join("\n")).unwrap();
    assert!(load(&[&path], false).unwrap_err().to_string().contains("ends before its 3 rows"));
}

#[test]
fn parquet_is_read_a_row_group_at_a_time_with_the_files_row_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("groups.parquet");
    let n = 2000;
    let mut results = vec![1.0; n];
    results[1500] = 0.7;
    let mut frame = DataFrame::new(
        n,
        vec![
            Column::new("a".into(), (0..n).map(|i| (i % 3) as f64).collect::<Vec<f64>>()),
            Column::new("result".into(), results.clone()),
            Column::new("game".into(), (0..n as i64).map(|i| i / 10).collect::<Vec<i64>>()),
        ],
    )
    .unwrap();
    let file = std::fs::File::create(&path).unwrap();
    ParquetWriter::new(file).with_row_group_size(Some(700)).finish(&mut frame).unwrap();
    let groups = ParquetReader::new(std::fs::File::open(&path).unwrap()).get_metadata().unwrap().row_groups.len();
    assert!(groups >= 2, "{groups} row groups");
    let err = load(&[&path], true).unwrap_err().to_string();
    assert!(err.contains("row 1501: result 0.7 is not 0, 0.5 or 1"), "{err}");

    results[1500] = 0.5;
    frame.replace("result", Column::new("result".into(), results)).unwrap();
    ParquetWriter::new(std::fs::File::create(&path).unwrap()).with_row_group_size(Some(700)).finish(&mut frame).unwrap();
    let rows = load(&[&path], true).unwrap();
    assert_eq!(rows.columns, ["a"]);
    assert_eq!(rows.game_count, Some(200));
    let total: f64 = rows.counts.iter().flatten().sum();
    assert_eq!(total, n as f64, "every row of every group is counted once");
}

/// Issue 33: a sparse row naming a column twice was read with both values.
#[test]
fn small_parquet_duplicate_idx_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dup.parquet");
    let idx = Series::new("idx".into(), [Series::new("".into(), [0i64, 0]), Series::new("".into(), [1i64])]);
    let val = Series::new("val".into(), [Series::new("".into(), [1.0f64, 2.0]), Series::new("".into(), [1.0f64])]);
    let mut frame = DataFrame::new(2, vec![idx.into_column(), val.into_column(), Column::new("result".into(), [1.0f64, 0.0])]).unwrap();
    let metadata = polars::io::parquet::write::KeyValueMetadata::from_static(vec![("pgntune.columns".to_string(), "[\"P\",\"N\"]".to_string())]);
    ParquetWriter::new(std::fs::File::create(&path).unwrap()).with_key_value_metadata(Some(metadata)).finish(&mut frame).unwrap();
    let err = load(&[&path], false).unwrap_err().to_string();
    assert!(err.contains("row 1: index 0 ('P') appears twice in idx"), "{err}");
}

/// Compact rows (term, count, phase) that cannot be expanded are refused
/// with their row; well-formed ones read as their design rows.
#[test]
fn compact_parquet_rows_are_expanded_or_refused_with_their_row() {
    let dir = tempfile::tempdir().unwrap();
    let columns = "[\"mg_a\",\"eg_a\",\"b\"]";
    // Term 0 is tapered (columns 0 and 1), term 1 untapered (column 2).
    let write = |name: &str, terms: Vec<Vec<i64>>, counts: Vec<Vec<i64>>, phases: Vec<i32>, term_columns: Option<&str>| {
        let path = dir.path().join(name);
        let n = terms.len();
        let list =
            |name: &str, rows: Vec<Vec<i64>>| Series::new(name.into(), rows.into_iter().map(|r| Series::new("".into(), r)).collect::<Vec<_>>());
        let mut frame = DataFrame::new(
            n,
            vec![
                list("term", terms).into_column(),
                list("count", counts).into_column(),
                Column::new("phase".into(), phases),
                Column::new("result".into(), vec![1.0f64; n]),
            ],
        )
        .unwrap();
        let mut pairs = vec![("pgntune.columns".to_string(), columns.to_string()), ("pgntune.shape".to_string(), "compact".to_string())];
        if let Some(term_columns) = term_columns {
            pairs.push(("pgntune.term_columns".to_string(), term_columns.to_string()));
        }
        let metadata = polars::io::parquet::write::KeyValueMetadata::from_static(pairs);
        ParquetWriter::new(std::fs::File::create(&path).unwrap()).with_key_value_metadata(Some(metadata)).finish(&mut frame).unwrap();
        path
    };
    let good = Some("[[0,1],[2]]");
    let path = write("good.parquet", vec![vec![0, 1], vec![1], vec![0]], vec![vec![2, -1], vec![3], vec![1]], vec![12, 24, 24], good);
    let rows = load(&[&path], false).unwrap();
    assert_eq!(rows.columns, ["mg_a", "eg_a", "b"]);
    let mut seen: Vec<Vec<f64>> = rows.features.chunks(3).map(|x| x.to_vec()).collect();
    seen.sort_by(|a, b| a.partial_cmp(b).unwrap());
    // 2·12/24 = 1 and 2·12/24 = 1 for term 0 at phase 12; phase 24 leaves eg at zero.
    assert_eq!(seen, vec![vec![0.0, 0.0, 3.0], vec![1.0, 0.0, 0.0], vec![1.0, 1.0, -1.0]]);

    let refused = [
        ("no-map.parquet", vec![vec![0]], vec![vec![1]], vec![12], None, "without the 'pgntune.term_columns' metadata"),
        ("bad-map.parquet", vec![vec![0]], vec![vec![1]], vec![12], Some("[[0,7],[2]]"), "gives term 0 the columns [0, 7]"),
        ("range.parquet", vec![vec![0], vec![5]], vec![vec![1], vec![1]], vec![12, 12], good, "row 2: term 5 or count 1 out of range (2 terms)"),
        ("twice.parquet", vec![vec![1, 1]], vec![vec![1, 2]], vec![12], good, "row 1: term 1 appears twice"),
        ("shared.parquet", vec![vec![0]], vec![vec![1]], vec![12], Some("[[0,1],[1]]"), "gives column 1 ('eg_a') to terms 0 and 1"),
        ("not-json.parquet", vec![vec![0]], vec![vec![1]], vec![12], Some("[[0,1],"), "its 'pgntune.term_columns' metadata is not JSON"),
        ("negative.parquet", vec![vec![0]], vec![vec![1]], vec![12], Some("[[0,-1],[2]]"), "is not a list of column lists"),
        ("phase.parquet", vec![vec![0]], vec![vec![1]], vec![30], good, "row 1:"),
        ("lengths.parquet", vec![vec![0, 1]], vec![vec![1]], vec![12], good, "row 1: 2 terms but 1 counts"),
    ];
    for (name, terms, counts, phases, map, want) in refused {
        let path = write(name, terms, counts, phases, map);
        let err = load(&[&path], false).unwrap_err().to_string();
        assert!(err.contains(want), "{name}: {err}");
    }

    // Counts that are not whole numbers are refused, not truncated.
    let path = dir.path().join("float.parquet");
    let list = |name: &str, rows: Vec<Vec<f64>>| Series::new(name.into(), rows.into_iter().map(|r| Series::new("".into(), r)).collect::<Vec<_>>());
    let mut frame = DataFrame::new(
        1,
        vec![
            Series::new("term".into(), [Series::new("".into(), [0i64])]).into_column(),
            list("count", vec![vec![1.5]]).into_column(),
            Column::new("phase".into(), [12i32]),
            Column::new("result".into(), [1.0f64]),
        ],
    )
    .unwrap();
    let metadata = polars::io::parquet::write::KeyValueMetadata::from_static(vec![
        ("pgntune.columns".to_string(), columns.to_string()),
        ("pgntune.term_columns".to_string(), "[[0,1],[2]]".to_string()),
    ]);
    ParquetWriter::new(std::fs::File::create(&path).unwrap()).with_key_value_metadata(Some(metadata)).finish(&mut frame).unwrap();
    let err = load(&[&path], false).unwrap_err().to_string();
    assert!(err.contains("column 'count' is not a list of integers"), "{err}");

    // A user's dense file whose features are called `term` and `count`
    // (no pgntune metadata) is read as one.
    let path = dir.path().join("dense.parquet");
    let mut frame = DataFrame::new(
        2,
        vec![Column::new("term".into(), [1.0f64, 0.0]), Column::new("count".into(), [0.0f64, 2.0]), Column::new("result".into(), [1.0f64, 0.0])],
    )
    .unwrap();
    ParquetWriter::new(std::fs::File::create(&path).unwrap()).finish(&mut frame).unwrap();
    let rows = load(&[&path], false).unwrap();
    assert_eq!(rows.columns, ["term", "count"]);
}
