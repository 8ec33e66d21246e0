//! The library's modules stand in layers (issue 34): no loop between the
//! top-level modules, none between the files of one module, and every use
//! of another module goes down the floors that `src/lib.rs` writes in its
//! module doc.
//!
//! The graph is read from the code's own paths: every `use` item (its
//! groups expanded) and every `crate::`, `super::` and `self::` path in
//! `src/**/*.rs`, with comments, strings and test code left out (files
//! named `tests.rs`, modules declared under `#[cfg(test)]`, and the items
//! that attribute marks). A path names the deepest module file it reaches.
//! Inside a module, a file using its own parent (a `mod.rs` or `name.rs`
//! that declares it and re-exports from it) is not an edge: that is how a
//! Rust module is put together, and the parent is the module's face.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path: `["fit", "sparse", "run"]`; the crate root is empty.
type ModulePath = Vec<String>;

/// One source file of the library (not a test file).
struct Source {
    /// Relative to the crate, for messages.
    path: PathBuf,
    module: ModulePath,
    /// The code without comments, strings and test code.
    code: String,
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The module a file under `src/` is: `a/mod.rs` and `a.rs` are `a`.
fn module_of(relative: &Path) -> ModulePath {
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.strip_suffix(".rs").expect("a .rs file").to_string();
    if stem != "mod" && stem != "lib" {
        parts.push(stem);
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("src/ is readable").map(|e| e.expect("an entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every library file under `src/` but `main.rs` and test files.
fn sources() -> Vec<Source> {
    let src = crate_dir().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut read = Vec::new();
    let mut test_only: BTreeSet<ModulePath> = BTreeSet::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("under src/").to_path_buf();
        if relative == Path::new("main.rs") || relative.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let module = module_of(&relative);
        let (code, test_children) = without_tests(&strip(&std::fs::read_to_string(&file).expect("a readable source")));
        for child in test_children {
            let mut path = module.clone();
            path.push(child);
            test_only.insert(path);
        }
        read.push(Source { path: Path::new("src").join(relative), module, code });
    }
    read.retain(|s| !test_only.iter().any(|t| s.module.starts_with(t)));
    read
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with comments, string and character literals blanked (newlines
/// kept); lifetimes stay.
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, from: &[char]| out.extend(from.iter().map(|&ch| if ch == '\n' { '\n' } else { ' ' }));
    let mut i = 0;
    while i < c.len() {
        let token_start = i == 0 || !is_ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            let end = c[i..].iter().position(|&ch| ch == '\n').map_or(c.len(), |p| i + p);
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let (mut depth, mut j) = (0, i);
            while j < c.len() {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &c[i..j.min(c.len())]);
            i = j;
        } else if token_start && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && raw_string_end(&c, i).is_some() {
            let end = raw_string_end(&c, i).expect("checked");
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(c.len());
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '\'' && c.get(i + 1) == Some(&'\\') {
            let end = c[i + 2..].iter().position(|&ch| ch == '\'').map_or(c.len(), |p| i + 3 + p);
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            blank(&mut out, &c[i..i + 3]);
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The end of a raw string starting at `i` (`r"`, `r#"`, `br#"`, ...).
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    let mut j = if c[i] == 'b' { i + 2 } else { i + 1 };
    let hashes = c[j..].iter().take_while(|&&ch| ch == '#').count();
    j += hashes;
    if c.get(j) != Some(&'"') {
        return None;
    }
    let closing: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
    (j + 1..=c.len().saturating_sub(closing.len())).find(|&k| c[k..k + closing.len()] == closing[..]).map(|k| k + closing.len())
}

/// `code` without the items under `#[cfg(test)]`, and the names of the
/// modules declared there as files (`#[cfg(test)] mod properties;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    const MARK: &str = "#[cfg(test)]";
    let mut out = code.to_string();
    let mut children = Vec::new();
    let mut from = 0;
    while let Some(at) = out[from..].find(MARK).map(|p| p + from) {
        let b = out.as_bytes();
        let mut j = at + MARK.len();
        // Further attributes, then the item up to its `;` or its block's end.
        loop {
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if b.get(j) == Some(&b'#') {
                j += out[j..].find(']').map_or(out.len() - j, |p| p + 1);
            } else {
                break;
            }
        }
        let item = j;
        let mut depth = 0usize;
        let mut end = b.len();
        for (k, &ch) in b.iter().enumerate().skip(item) {
            match ch {
                b';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let words: Vec<&str> = out[item..end].split(|ch: char| !is_ident(ch)).filter(|w| !w.is_empty()).collect();
        if out[item..end].ends_with(';')
            && let Some(p) = words.iter().position(|w| *w == "mod")
            && let Some(name) = words.get(p + 1)
        {
            children.push(name.to_string());
        }
        let blanked: String = out[at..end].chars().map(|ch| if ch == '\n' { '\n' } else { ' ' }).collect();
        out.replace_range(at..end, &blanked);
        from = end;
    }
    (out, children)
}

/// Tokens of a path or use tree: identifiers, `::`, `{`, `}`, `,`, `*`.
fn tokens(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if is_ident(c[i]) {
            let start = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            out.push(c[start..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c[i].is_whitespace() {
                out.push(c[i].to_string());
            }
            i += 1;
        }
    }
    out
}

/// The paths a use tree names: `crate::{a::b, c::{self, d}}` is
/// `crate::a::b`, `crate::c` and `crate::c::d`.
fn expand_use(text: &str) -> Vec<Vec<String>> {
    fn tree(t: &[String], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        while *i < t.len() {
            match t[*i].as_str() {
                "::" => *i += 1,
                "{" => {
                    *i += 1;
                    while *i < t.len() && t[*i] != "}" {
                        tree(t, i, path.clone(), out);
                        if *i < t.len() && t[*i] == "," {
                            *i += 1;
                        }
                    }
                    *i += 1;
                    return;
                }
                "," | "}" => break,
                "*" => *i += 1,
                "as" => *i += 2,
                "self" if !path.is_empty() => *i += 1,
                word => {
                    path.push(word.to_string());
                    *i += 1;
                }
            }
        }
        out.push(path);
    }
    let t = tokens(text.trim().trim_start_matches("::"));
    let mut out = Vec::new();
    let mut i = 0;
    tree(&t, &mut i, Vec::new(), &mut out);
    out
}

/// Every path the code names that starts at `crate`, `super` or `self`.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    // `use` items, groups expanded.
    let mut from = 0;
    while let Some(at) = code[from..].find("use").map(|p| p + from) {
        from = at + 3;
        let before = code[..at].chars().next_back();
        let after = code[at + 3..].chars().next();
        if before.is_some_and(is_ident) || !after.is_some_and(char::is_whitespace) {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |p| at + p);
        out.extend(expand_use(&code[at + 3..end]));
        from = end;
    }
    // Paths in the code itself (`crate::x::f()`, `super::y::Z`).
    let t = tokens(code);
    for (i, word) in t.iter().enumerate() {
        let starts = matches!(word.as_str(), "crate" | "super" | "self") && t.get(i + 1).is_some_and(|n| n == "::");
        let continues = i > 0 && t[i - 1] == "::";
        if starts && !continues {
            let mut path = vec![word.clone()];
            let mut j = i + 1;
            while t.get(j).is_some_and(|n| n == "::") && t.get(j + 1).is_some_and(|n| n.chars().all(is_ident)) {
                path.push(t[j + 1].clone());
                j += 2;
            }
            out.push(path);
        }
    }
    out
}

/// The deepest module of `modules` that `path`, written in `module`,
/// reaches; `None` for paths that do not start at `crate`, `super` or
/// `self`, or that end at the crate root.
fn resolve(module: &[String], path: &[String], modules: &BTreeSet<ModulePath>) -> Option<ModulePath> {
    let mut at: ModulePath;
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            at = Vec::new();
            rest = &path[1..];
        }
        Some("self" | "super") => {
            at = module.to_vec();
            while let Some(word) = rest.first().map(String::as_str) {
                match word {
                    "self" => {}
                    "super" => {
                        at.pop()?;
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    for word in rest {
        let mut deeper = at.clone();
        deeper.push(word.clone());
        if !modules.contains(&deeper) {
            break;
        }
        at = deeper;
    }
    (!at.is_empty()).then_some(at)
}

/// The library's edges, file to module, with the files that make them.
struct Graph {
    /// (from module, to module) → files that use it.
    edges: BTreeMap<(ModulePath, ModulePath), BTreeSet<PathBuf>>,
    /// Every module and its file.
    files: BTreeMap<ModulePath, PathBuf>,
}

fn graph() -> Graph {
    let sources = sources();
    let modules: BTreeSet<ModulePath> = sources.iter().map(|s| s.module.clone()).collect();
    let mut edges: BTreeMap<(ModulePath, ModulePath), BTreeSet<PathBuf>> = BTreeMap::new();
    for source in &sources {
        for path in paths(&source.code) {
            if let Some(target) = resolve(&source.module, &path, &modules)
                && target != source.module
            {
                edges.entry((source.module.clone(), target)).or_default().insert(source.path.clone());
            }
        }
    }
    Graph { edges, files: sources.into_iter().map(|s| (s.module, s.path)).collect() }
}

/// A loop in `graph`, as its nodes in order (the first repeated at the end).
fn find_cycle<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    fn visit<N: Ord + Clone>(node: &N, graph: &BTreeMap<N, BTreeSet<N>>, done: &mut BTreeSet<N>, stack: &mut Vec<N>) -> Option<Vec<N>> {
        if let Some(p) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[p..].to_vec();
            cycle.push(node.clone());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.clone());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

/// The edges between top-level modules, with the files that make them.
fn module_edges(graph: &Graph) -> BTreeMap<(String, String), BTreeSet<PathBuf>> {
    let mut out: BTreeMap<(String, String), BTreeSet<PathBuf>> = BTreeMap::new();
    for ((from, to), files) in &graph.edges {
        if let (Some(a), Some(b)) = (from.first(), to.first())
            && a != b
        {
            out.entry((a.clone(), b.clone())).or_default().extend(files.iter().cloned());
        }
    }
    out
}

/// The floors of `src/lib.rs`'s module doc, lowest first.
fn floors() -> Vec<Vec<String>> {
    let lib = std::fs::read_to_string(crate_dir().join("src/lib.rs")).expect("src/lib.rs");
    let doc: Vec<&str> = lib.lines().filter_map(|l| l.strip_prefix("//!")).map(str::trim).collect();
    let heading = doc.iter().position(|l| *l == "## Layers").expect("src/lib.rs's doc has a '## Layers' section");
    let open = heading + doc[heading..].iter().position(|l| *l == "```text").expect("the layers in a ```text block");
    let close = open + 1 + doc[open + 1..].iter().position(|l| *l == "```").expect("the block closed");
    let mut floors: Vec<Vec<String>> = doc[open + 1..close].iter().map(|l| l.split_whitespace().map(str::to_string).collect()).collect();
    floors.reverse();
    floors
}

fn describe(files: &BTreeSet<PathBuf>) -> String {
    files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
}

#[test]
fn modules_form_no_loop() {
    let edges = module_edges(&graph());
    let mut adjacency: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        adjacency.entry(from.clone()).or_default().insert(to.clone());
    }
    if let Some(cycle) = find_cycle(&adjacency) {
        let ties: Vec<String> =
            cycle.windows(2).map(|w| format!("  {} -> {}: {}", w[0], w[1], describe(&edges[&(w[0].clone(), w[1].clone())]))).collect();
        panic!("the modules form a loop: {}\n{}", cycle.join(" -> "), ties.join("\n"));
    }
}

#[test]
fn files_of_a_module_form_no_loop() {
    let graph = graph();
    let mut adjacency: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for (from, to) in graph.edges.keys() {
        // Within one top-level module, and not a file using its own parent.
        if from.first() == to.first() && !from.starts_with(to) {
            adjacency.entry(from.clone()).or_default().insert(to.clone());
        }
    }
    if let Some(cycle) = find_cycle(&adjacency) {
        let files: Vec<String> = cycle.iter().map(|m| graph.files[m].display().to_string()).collect();
        panic!("the files of module {} form a loop: {}", cycle[0][0], files.join(" -> "));
    }
}

#[test]
fn modules_keep_to_the_layers_of_lib_rs() {
    let graph = graph();
    let floors = floors();
    let floor_of = |name: &str| floors.iter().position(|f| f.iter().any(|n| n == name));
    let modules: BTreeSet<String> = graph.files.keys().filter_map(|m| m.first().cloned()).collect();
    let listed: Vec<&String> = floors.iter().flatten().collect();
    for module in &modules {
        assert_eq!(listed.iter().filter(|n| **n == module).count(), 1, "module {module} is listed once in src/lib.rs's layers");
    }
    for name in &listed {
        assert!(modules.contains(*name), "src/lib.rs's layers list {name}, which is no module");
    }
    let edges = module_edges(&graph);
    let mut wrong = Vec::new();
    for ((from, to), files) in &edges {
        let (a, b) = (floor_of(from).expect("listed"), floor_of(to).expect("listed"));
        if b >= a {
            let way = if a == b { "beside it" } else { "above it" };
            wrong.push(format!("{from} uses {to}, {way} ({})", describe(files)));
        }
    }
    assert!(wrong.is_empty(), "uses that break the layers of src/lib.rs:\n{}", wrong.join("\n"));
}

#[test]
fn the_reader_sees_what_it_should() {
    let code = strip(
        "use crate::{a::b, c::{self, d as e}}; // crate::f::g\nlet s = \"crate::h\"; let c = '{'; super::super::i::j(); fn f<'a>(x: &'a str) {}",
    );
    let found = paths(&code);
    for want in [&["crate", "a", "b"][..], &["crate", "c"], &["crate", "c", "d"], &["super", "super", "i", "j"]] {
        assert!(found.iter().any(|p| p == want), "{want:?} in {found:?}");
    }
    assert!(!found.iter().any(|p| p.iter().any(|w| w == "f" || w == "h")), "comments and strings are not read: {found:?}");
    let (kept, children) = without_tests(&strip("use crate::x;\n#[cfg(test)]\nmod props;\n#[cfg(test)]\nmod tests {\n    use crate::y::{z};\n}\n"));
    assert_eq!(children, ["props"]);
    assert!(kept.contains("crate::x") && !kept.contains("crate::y"));
    let modules: BTreeSet<ModulePath> = [vec!["a".to_string()], vec!["a".into(), "b".into()], vec!["c".into()]].into();
    let at = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(resolve(&at(&["a", "b"]), &at(&["super", "super", "c", "X"]), &modules), Some(at(&["c"])));
    assert_eq!(resolve(&at(&["a"]), &at(&["self", "b", "f"]), &modules), Some(at(&["a", "b"])));
    assert_eq!(resolve(&at(&["c"]), &at(&["crate", "thread_count"]), &modules), None);
    let looped: BTreeMap<u8, BTreeSet<u8>> = [(1, [2].into()), (2, [3].into()), (3, [1].into())].into();
    assert_eq!(find_cycle(&looped), Some(vec![1, 2, 3, 1]));
    let layered: BTreeMap<u8, BTreeSet<u8>> = [(1, [2, 3].into()), (2, [3].into())].into();
    assert_eq!(find_cycle(&layered), None);
}
