//! The README and the guide under `docs/` (issue 35): every relative link
//! leads to a file that exists and, with `#anchor`, to a heading in it;
//! every page of `docs/src` is in the book's SUMMARY.md and every entry
//! there is a page. `.ci/run` builds the book with mdbook; this test keeps
//! the links honest without it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The markdown links `[text](target)` of `text`, outside code blocks and
/// inline code.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code spans are not links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            found.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    found
}

/// The anchors mdbook (and GitHub) give the headings of `text`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        out.insert(slug);
    }
    out
}

/// The problems with the relative links of the markdown file `file`.
fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let folder = file.parent().unwrap();
    let mut broken = Vec::new();
    for link in links(&text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = link.split_once('#').map_or((link.as_str(), None), |(p, a)| (p, Some(a)));
        let target = if path.is_empty() { file.to_path_buf() } else { folder.join(path) };
        if !target.exists() {
            broken.push(format!("{}: '{link}': no such file", file.display()));
            continue;
        }
        if let Some(anchor) = anchor
            && !anchors(&std::fs::read_to_string(&target).unwrap_or_default()).contains(anchor)
        {
            broken.push(format!("{}: '{link}': no such heading", file.display()));
        }
    }
    broken
}

fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> =
        std::fs::read_dir(root().join("docs/src")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    pages.sort();
    pages
}

#[test]
fn every_link_of_the_readme_and_the_guide_leads_somewhere() {
    let mut broken = broken_links(&root().join("README.md"));
    for page in pages() {
        broken.extend(broken_links(&page));
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_is_in_the_summary_and_every_entry_is_a_page() {
    let summary = std::fs::read_to_string(root().join("docs/src/SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    let present: BTreeSet<String> =
        pages().iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).filter(|name| name != "SUMMARY.md").collect();
    assert_eq!(listed, present, "SUMMARY.md and the pages of docs/src differ");
}

#[test]
fn the_link_checker_finds_what_it_should() {
    assert_eq!(links("a [x](b.md) `[not](c.md)` [y](d.md#e)\n```\n[no](f.md)\n```\n"), ["b.md", "d.md#e"]);
    assert!(anchors("# The tuning loop: from games to a verdict\n## `pgntune fit` and tune\n").contains("the-tuning-loop-from-games-to-a-verdict"));
    assert!(anchors("## `pgntune fit` and tune\n").contains("pgntune-fit-and-tune"));
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.md");
    std::fs::write(&page, "# Here\n[ok](#here) [bad](#there) [gone](q.md)\n").unwrap();
    assert_eq!(broken_links(&page).len(), 2, "{:?}", broken_links(&page));
}
