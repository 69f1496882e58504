//! Who is who: which record files are one author, and at which URL.
//!
//! * Files whose names have the same [`name_key`] are one author (with a warning, so
//!   that two people of one name are noticed).
//! * `record_files.<path>` in the configuration says whose file a file is: `name` reads
//!   it as that name (it joins the author of that name); `disambiguation` makes it an
//!   author of its own, apart from others of the same name, at
//!   `/authors/<name>-<disambiguation>/`.
//! * `aliases` (under `authors.<slug or name>` in the configuration, or in a bio's front
//!   matter) lists other names, or record-file paths, of one author: those files join
//!   it, at its URL.
//! * An author's slug comes from the name (and disambiguation) of its first file in path
//!   order; among authors whose slugs would be equal, the first by identity key keeps it
//!   and the others get a suffix (see [`unique_slugs`]).
//! * A slug the files would have without any of these settings, which no author holds
//!   any more, is a *former slug*: it leads to the author now holding most of its files
//!   (see [`People::former_slugs`]), so that declaring an alias or a split breaks no URL.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use rayon::prelude::*;

use crate::config::{SiteConfig, CONFIG_FILE};
use crate::content::Bio;
use crate::diagnostics::{Diagnostic, Location};
use crate::normalize::name_key;
use crate::records::RecordFile;
use crate::slug::{slugify, unique_slugs};
use crate::sources::RECORDS_DIR;

/// What the site says about who is who: per-file settings and aliases.
#[derive(Debug, Clone, Default)]
pub struct IdentityRules {
    /// Per record file, by its path as shown (`content/records/x.txt`).
    files: BTreeMap<String, FileRule>,
    /// Aliases, in the order declared (configuration first, then bios).
    aliases: Vec<AliasRule>,
}

/// Whose file a record file is.
#[derive(Debug, Clone, Default)]
struct FileRule {
    /// The name to read it as.
    name: Option<String>,
    /// What tells its author from others of the same name.
    disambiguation: Option<String>,
    /// Where the setting was written.
    written_at: Option<Location>,
}

/// Other names of one author.
#[derive(Debug, Clone)]
struct AliasRule {
    /// The author: a slug, or (from the configuration) a name.
    target: String,
    /// Whether `target` may be a name, or only a slug (a bio's file stem).
    target_may_be_name: bool,
    /// Names or record-file paths.
    aliases: Vec<String>,
    /// Where they were written, for diagnostics.
    written_at: Option<Location>,
}

impl IdentityRules {
    /// The rules the configuration's `record_files` and `authors.*.aliases`, and the
    /// bios' `aliases`, declare.
    pub fn of_site(config: &SiteConfig, bios: &[Bio]) -> IdentityRules {
        let files = config
            .record_files
            .iter()
            .map(|(path, settings)| {
                let rule = FileRule {
                    name: non_empty(settings.name.as_deref()),
                    disambiguation: non_empty(settings.disambiguation.as_deref()),
                    written_at: settings.written_at.get("").cloned(),
                };
                (record_file_key(path), rule)
            })
            .collect();
        let configured = config.authors.iter().map(|(key, details)| AliasRule {
            target: key.clone(),
            target_may_be_name: true,
            aliases: details.aliases.clone(),
            written_at: details.location_of("aliases").cloned(),
        });
        let from_bios = bios.iter().map(|bio| AliasRule {
            target: bio.slug.clone(),
            target_may_be_name: false,
            aliases: bio.front.aliases.clone(),
            written_at: bio.front.location_of("aliases").cloned(),
        });
        let aliases = configured
            .chain(from_bios)
            .filter(|rule| !rule.aliases.is_empty())
            .collect();
        IdentityRules { files, aliases }
    }

    /// Whether the rules change nothing: every file is its name's.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.aliases.is_empty()
    }
}

/// A record-file path as settings write it, in the form files are shown:
/// `content/records/<path>`, with `/` separators.
pub fn record_file_key(written: &str) -> String {
    let path = written.trim().replace('\\', "/");
    let path = path.trim_start_matches("./");
    if path.starts_with(&format!("{RECORDS_DIR}/")) {
        path.to_string()
    } else {
        format!("{RECORDS_DIR}/{path}")
    }
}

/// Whether an alias names a record file rather than a person.
fn is_path_alias(alias: &str) -> bool {
    alias.contains('/') || alias.trim_end().ends_with(".txt")
}

fn non_empty(text: Option<&str>) -> Option<String> {
    text.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// The authors of a set of record files.
#[derive(Debug, Default)]
pub struct People {
    /// Each author's files (indexes into the files), in path order.
    pub files: Vec<Vec<usize>>,
    /// Each author's identity key: the name key, and the disambiguation's if any.
    pub keys: Vec<String>,
    /// Each author's name, from its first file (or the name its settings read it as).
    pub names: Vec<String>,
    /// Each author's disambiguation.
    pub disambiguations: Vec<Option<String>>,
    /// Each author's slug (unique).
    pub slugs: Vec<String>,
    /// Each file's author.
    pub of_file: Vec<usize>,
    /// Slugs the files would have without the site's settings, which no author holds:
    /// `(slug, author now holding most of those files)`, by slug.
    pub former_slugs: Vec<(String, usize)>,
    /// Warnings: files merged by name, settings that match nothing.
    pub diagnostics: Vec<Diagnostic>,
}

/// Groups `files` (in path order) into authors by their names and `rules`.
pub fn group_authors(files: &[&RecordFile], rules: &IdentityRules) -> People {
    let mut diagnostics = Vec::new();
    // Most sites set no file rules: then no path is shown for the lookup.
    let rule_of = |file: &RecordFile| {
        (!rules.files.is_empty())
            .then(|| rules.files.get(&shown_path(&file.path)))
            .flatten()
    };
    let read_as: Vec<(String, Option<String>)> = files
        .iter()
        .map(|file| match rule_of(file) {
            Some(rule) => (
                rule.name
                    .clone()
                    .unwrap_or_else(|| file.author_name.clone()),
                rule.disambiguation.clone(),
            ),
            None => (file.author_name.clone(), None),
        })
        .collect();
    diagnostics.extend(unmatched_file_rules(files, rules));
    let keys: Vec<String> = (read_as.par_iter())
        .map(|(name, d)| identity_key(name, d.as_deref()))
        .collect();
    let base = NameGroups::of(keys.into_iter());
    diagnostics.extend(base.merge_warnings(files));
    let base_slugs = unique_slugs(
        (base.first_file.par_iter())
            .map(|&f| author_slug_base(&read_as[f].0, read_as[f].1.as_deref()))
            .collect(),
        |g| base.keys[g].clone(),
    );
    let mut merged = Merges::new(&base);
    merged.apply_aliases(rules, files, &base, &base_slugs, &mut diagnostics);
    let mut people = merged.people(&base, &base_slugs, &read_as);
    if !rules.is_empty() {
        people.former_slugs = former_slugs(files, &people);
    }
    people.diagnostics = diagnostics;
    people
}

/// A path as record files show it, with `/` separators.
fn shown_path(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// The identity key of a name read with a disambiguation.
fn identity_key(name: &str, disambiguation: Option<&str>) -> String {
    match disambiguation {
        Some(d) => format!("{} ({})", name_key(name), name_key(d)),
        None => name_key(name),
    }
}

/// The slug an author of this name and disambiguation starts from.
fn author_slug_base(name: &str, disambiguation: Option<&str>) -> String {
    match disambiguation {
        Some(d) => slugify(&format!("{name} {d}"), "author"),
        None => slugify(name, "author"),
    }
}

/// Warnings for `record_files` settings that name no record file.
fn unmatched_file_rules(files: &[&RecordFile], rules: &IdentityRules) -> Vec<Diagnostic> {
    if rules.files.is_empty() {
        return Vec::new();
    }
    let present: HashSet<String> = files.iter().map(|f| shown_path(&f.path)).collect();
    rules
        .files
        .iter()
        .filter(|(path, _)| !present.contains(*path))
        .map(|(path, rule)| {
            Diagnostic::warning(
                format!("record_files: `{path}` is no record file of the site"),
                rule.written_at.clone(),
            )
            .with_note("the setting is ignored")
        })
        .collect()
}

/// Files grouped by identity key, in order of first file.
struct NameGroups {
    /// Each group's identity key.
    keys: Vec<String>,
    /// Each group's files, in path order.
    files: Vec<Vec<usize>>,
    /// Each group's first file.
    first_file: Vec<usize>,
    /// Each file's group.
    of_file: Vec<usize>,
}

impl NameGroups {
    /// The files (each with its identity key, in path order) grouped by key, the groups
    /// in the order of their first files. Each key is looked up by reference, hashed
    /// with foldhash, and kept once: at 217,500 files, copying every key into a map
    /// hashed with SipHash took 73 ms of a watcher's link, on one thread.
    fn of(keys: impl Iterator<Item = String>) -> NameGroups {
        let mut keys: Vec<String> = keys.collect();
        let mut groups = NameGroups {
            keys: Vec::new(),
            files: Vec::new(),
            first_file: Vec::new(),
            of_file: Vec::with_capacity(keys.len()),
        };
        let mut group_of_key: HashMap<&str, usize, foldhash::fast::RandomState> =
            HashMap::with_capacity_and_hasher(keys.len(), Default::default());
        for (file, key) in keys.iter().enumerate() {
            let group = *group_of_key.entry(key).or_insert_with(|| {
                groups.files.push(Vec::new());
                groups.first_file.push(file);
                groups.files.len() - 1
            });
            groups.files[group].push(file);
            groups.of_file.push(group);
        }
        drop(group_of_key);
        groups.keys = (groups.first_file.iter())
            .map(|&file| std::mem::take(&mut keys[file]))
            .collect();
        groups
    }

    /// A warning for each file merged into the author of an earlier one by its name.
    fn merge_warnings(&self, files: &[&RecordFile]) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        for group in self.files.iter().filter(|f| f.len() > 1) {
            let first = files[group[0]];
            for &other in &group[1..] {
                let file = files[other];
                diagnostics.push(
                    Diagnostic::warning(
                        format!(
                            "`{}` is also the author of {}; the files are merged into one author",
                            file.author_name,
                            first.path.display()
                        ),
                        Some(Location::at_line(&file.path, 1, 1, &file.author_name, 1)),
                    )
                    .with_note(format!(
                        "if these are two people, give one file a disambiguation in {CONFIG_FILE} (record_files: {{{}: {{disambiguation: ...}}}})",
                        shown_path(&file.path)
                    )),
                );
            }
        }
        diagnostics
    }
}

/// Name groups joined by aliases (a union-find over groups), and files moved by path
/// aliases.
struct Merges {
    /// Each group's parent group (itself at a root).
    parent: Vec<usize>,
    /// Files moved to another group by a path alias.
    moved: HashMap<usize, usize>,
}

impl Merges {
    fn new(base: &NameGroups) -> Merges {
        Merges {
            parent: (0..base.keys.len()).collect(),
            moved: HashMap::new(),
        }
    }

    fn root(&self, mut group: usize) -> usize {
        while self.parent[group] != group {
            group = self.parent[group];
        }
        group
    }

    /// Joins the groups each alias rule names into its target's; reports what matches
    /// nothing.
    fn apply_aliases(
        &mut self,
        rules: &IdentityRules,
        files: &[&RecordFile],
        base: &NameGroups,
        base_slugs: &[String],
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if rules.aliases.is_empty() {
            // Most sites: no lookup tables of every file and author.
            return;
        }
        let group_of_slug: HashMap<&str, usize> = base_slugs
            .iter()
            .enumerate()
            .map(|(g, s)| (s.as_str(), g))
            .collect();
        let group_of_key: HashMap<&str, usize> = base
            .keys
            .iter()
            .enumerate()
            .map(|(g, k)| (k.as_str(), g))
            .collect();
        let file_of_path: HashMap<String, usize> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (shown_path(&f.path), i))
            .collect();
        for rule in &rules.aliases {
            let target = group_of_slug
                .get(rule.target.as_str())
                .copied()
                .or_else(|| {
                    let by_name = rule.target_may_be_name;
                    by_name
                        .then(|| group_of_key.get(name_key(&rule.target).as_str()).copied())
                        .flatten()
                });
            let Some(target) = target else {
                diagnostics.push(
                    Diagnostic::warning(
                        format!(
                            "aliases of `{}`: no author has that slug or name",
                            rule.target
                        ),
                        rule.written_at.clone(),
                    )
                    .with_note("the aliases are ignored"),
                );
                continue;
            };
            for alias in &rule.aliases {
                let joined = if is_path_alias(alias) {
                    file_of_path.get(&record_file_key(alias)).map(|&file| {
                        self.moved.insert(file, target);
                    })
                } else {
                    group_of_key.get(name_key(alias).as_str()).map(|&group| {
                        let (from, to) = (self.root(group), self.root(target));
                        if from != to {
                            self.parent[from] = to;
                        }
                    })
                };
                if joined.is_none() {
                    diagnostics.push(
                        Diagnostic::warning(
                            format!(
                                "alias `{alias}` of `{}` matches no record file or author name",
                                rule.target
                            ),
                            rule.written_at.clone(),
                        )
                        .with_note(
                            "an alias is a name as record files write it, or a record file's path",
                        ),
                    );
                }
            }
        }
    }

    /// The authors: one per root group that holds a file, in order of first file.
    fn people(
        &self,
        base: &NameGroups,
        base_slugs: &[String],
        read_as: &[(String, Option<String>)],
    ) -> People {
        let mut people = People::default();
        let mut author_of_root: Vec<Option<usize>> = vec![None; base.keys.len()];
        for file in 0..base.of_file.len() {
            let group = self.moved.get(&file).copied().unwrap_or(base.of_file[file]);
            let root = self.root(group);
            let author = *author_of_root[root].get_or_insert_with(|| {
                // The name of the root's own first file, when it still has it.
                let named_by = base.files[root]
                    .iter()
                    .copied()
                    .find(|f| !self.moved.contains_key(f))
                    .unwrap_or(file);
                people.files.push(Vec::new());
                people.keys.push(base.keys[root].clone());
                people.names.push(read_as[named_by].0.clone());
                people.disambiguations.push(read_as[named_by].1.clone());
                people.slugs.push(base_slugs[root].clone());
                people.files.len() - 1
            });
            people.files[author].push(file);
            people.of_file.push(author);
        }
        people
    }
}

/// The slugs files would have by their names alone that no author holds now, each with
/// the author holding most of its files (ties: the first).
fn former_slugs(files: &[&RecordFile], people: &People) -> Vec<(String, usize)> {
    let raw = NameGroups::of(files.iter().map(|f| name_key(&f.author_name)));
    let raw_slugs = unique_slugs(
        raw.first_file
            .iter()
            .map(|&f| slugify(&files[f].author_name, "author"))
            .collect(),
        |g| raw.keys[g].clone(),
    );
    let held: HashSet<&str> = people.slugs.iter().map(String::as_str).collect();
    let mut former = Vec::new();
    for (group, slug) in raw_slugs.iter().enumerate() {
        if held.contains(slug.as_str()) {
            continue;
        }
        // Authors in order of their first file of the group, with how many they hold.
        let mut count: Vec<(usize, usize)> = Vec::new();
        for &file in &raw.files[group] {
            let author = people.of_file[file];
            match count.iter_mut().find(|(a, _)| *a == author) {
                Some((_, n)) => *n += 1,
                None => count.push((author, 1)),
            }
        }
        let best = count.iter().rev().max_by_key(|(_, n)| *n).map(|&(a, _)| a);
        if let Some(author) = best {
            former.push((slug.clone(), author));
        }
    }
    former.sort();
    former
}
