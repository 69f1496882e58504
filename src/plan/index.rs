//! The site index: everything the outputs are made from, computed once, in plain
//! read-only tables by author and paper id (profiles, paths, URLs, lists, converted
//! texts, citation keys). Later stages read it; nothing in it is made on first use.

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::citation_keys::citation_keys;
use super::lists::{paper_lists, PaperLists};
use super::paths::{page_paths, public_url};
use super::profiles::{merge_profiles, Profile};
use super::redirects::{plan_redirects, Redirect, SlugHistory};
use super::texts::{convert_texts, PaperText};
use super::{PageKind, PlanInput, RESERVED_SEGMENTS};
use crate::config::{ExportsMode, SiteConfig};
use crate::content::ExtraPage;
use crate::diagnostics::{Diagnostic, Location};
use crate::graph::{AuthorId, Paper, PaperId, SiteGraph};

/// Everything the outputs of a site are made from.
pub struct SiteIndex<'a> {
    /// The linked authors and papers.
    pub graph: &'a SiteGraph,
    /// Site configuration.
    pub config: &'a SiteConfig,
    /// Whether directories are linked as `x/` (else `x/index.html`).
    pub pretty: bool,
    /// Extra pages, in navigation order (weight, then title).
    pub extra_pages: Vec<&'a ExtraPage>,
    /// Each author's profile, by author id.
    pub profiles: Vec<Profile>,
    /// Subject code -> papers, newest first.
    pub subjects: BTreeMap<&'a str, Vec<PaperId>>,
    /// Year -> papers, by title.
    pub years: BTreeMap<u16, Vec<PaperId>>,
    /// Every paper, newest first (then by slug).
    pub newest: Vec<PaperId>,
    /// Site path of each author page, by author id.
    pub author_paths: Vec<String>,
    /// Site path of each paper page, by paper id.
    pub paper_paths: Vec<String>,
    /// Title and abstract of each paper as HTML and as clean text, by paper id.
    pub paper_texts: Vec<Arc<PaperText>>,
    /// Citation key of each paper, by paper id (shared with the memo that keeps them
    /// for the next build, see [`super::citation_keys`]).
    pub citation_keys: Arc<Vec<String>>,
    /// The authors by the first letter of their family name, A to Z, then `#` (names
    /// that transliterate to no letter); within a letter by family name.
    pub author_letters: Vec<LetterList>,
    /// Whether each author's publication lists are `data:` links in their page rather
    /// than files, by author id (see [`inline_author_lists`]).
    pub author_lists_inline: Vec<bool>,
    /// The authors of each shard of the authors' data (see [`data_shards`]).
    pub author_shards: Vec<Vec<AuthorId>>,
    /// The papers of each shard of the papers' data.
    pub paper_shards: Vec<Vec<PaperId>>,
    /// The site path of every page the sitemap lists (see [`sitemap_paths`]).
    pub sitemap_paths: Vec<String>,
    /// On a site of more than [`super::SITEMAP_URLS`] pages, the pages of each part of
    /// the sitemap, as indices into [`SiteIndex::sitemap_paths`] (see
    /// [`super::sitemap_parts`]).
    pub sitemap_parts: Vec<Vec<u32>>,
    /// Old URLs that lead to pages, by old path (see [`super::redirects`]).
    pub redirects: Vec<Redirect>,
    /// What the next build into the same output folder needs to tell moved pages.
    pub slug_history: SlugHistory,
}

/// The site paths of the pages a sitemap lists: every page of [`super::list_pages`]
/// but the 404 and search pages, in its order.
pub fn sitemap_paths(ix: &SiteIndex) -> Vec<String> {
    super::list_pages(ix)
        .par_iter()
        .filter(|page| !matches!(page, PageKind::NotFound | PageKind::Search))
        .map(|page| super::page_path(ix, page).0)
        .collect()
}

/// About how many items a shard of the site's data holds (a few megabytes of papers).
pub const DATA_SHARD_SIZE: usize = 1000;

/// Splits items, by their `slugs` (in slug order, as the graph keeps its authors and
/// its papers), into shards of [`DATA_SHARD_SIZE`] or fewer on average (never more than
/// twice that), each in slug order: a shard lists its items in the order they are given.
/// An item's shard is a hash of its slug ([`super::parts::hash_parts`]), so that a new
/// item changes one shard rather than moving every later one.
pub fn data_shards(slugs: &[&str]) -> Vec<Vec<usize>> {
    debug_assert!(slugs.is_sorted(), "data shards are made of slugs in order");
    let parts = super::parts::hash_parts(slugs, DATA_SHARD_SIZE);
    (parts.into_par_iter())
        .map(|part| part.into_iter().map(|id| id as usize).collect())
        .collect()
}

/// The shards of the authors' data and of the papers' data ([`data_shards`]), side by
/// side.
fn data_shards_of(graph: &SiteGraph) -> (Vec<Vec<AuthorId>>, Vec<Vec<PaperId>>) {
    rayon::join(
        || {
            let slugs: Vec<&str> = graph.authors.par_iter().map(|a| a.slug.as_str()).collect();
            data_shards(&slugs)
        },
        || {
            let slugs: Vec<&str> = graph.papers.par_iter().map(|p| p.slug.as_str()).collect();
            data_shards(&slugs)
        },
    )
}

/// Up to about this many bytes, a publication list (in each format) is a `data:` link
/// in the author's page rather than a file: one block of most file systems, which a
/// smaller file takes whole anyway.
pub const INLINE_LIST_BYTES: usize = 4096;

/// What a list entry takes besides its title and author names (CSL-JSON, the longest
/// format: type, key, year, subject, publisher, language).
const LIST_ENTRY_BYTES: usize = 200;

/// What one author name takes in a list entry (CSL-JSON's `{"family":..,"given":..}`).
const LIST_NAME_BYTES: usize = 40;

/// Whether the publication lists of each author are `data:` links: with
/// [`ExportsMode::Inline`], when an estimate of the longest list (from its papers'
/// titles and numbers of names) is at most [`INLINE_LIST_BYTES`].
pub fn inline_author_lists(
    graph: &SiteGraph,
    config: &SiteConfig,
    texts: &[Arc<PaperText>],
    profiles: &[Profile],
) -> Vec<bool> {
    if config.exports != ExportsMode::Inline {
        return vec![false; graph.authors.len()];
    }
    // Each paper's entry once (a paper is in 2.4 authors' lists on average).
    let entry_bytes: Vec<usize> = (graph.papers.par_iter().enumerate())
        .map(|(p, paper)| {
            let names = author_names(paper, profiles);
            let name_bytes: usize = names.map(|n| LIST_NAME_BYTES + n.len()).sum();
            LIST_ENTRY_BYTES + texts[p].title_text.len() + name_bytes
        })
        .collect();
    (graph.authors.par_iter())
        .map(|a| a.papers.iter().map(|&p| entry_bytes[p]).sum::<usize>() <= INLINE_LIST_BYTES)
        .collect()
}

/// The display names of `paper`'s authors, in order (from their `profiles`, by author
/// id): made when asked for rather than kept for every paper.
fn author_names<'p>(
    paper: &'p Paper,
    profiles: &'p [Profile],
) -> impl Iterator<Item = &'p str> + 'p {
    paper.authors.iter().map(|&a| profiles[a].name.as_str())
}

/// The authors whose family names start with one letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LetterList {
    /// `A` to `Z`, or `#`.
    pub letter: String,
    /// The authors, by family name then the rest of the name.
    pub authors: Vec<AuthorId>,
}

impl<'a> SiteIndex<'a> {
    /// Indexes a linked site; what does not check out is reported in `diagnostics`.
    pub fn new(input: &PlanInput<'a, '_>, diagnostics: &mut Vec<Diagnostic>) -> SiteIndex<'a> {
        let graph = input.graph;
        let config = input.config;
        let layout = config.page_layout;
        // Four steps that read only the graph, side by side: each is partly serial.
        let ((profiled, converted), (by_date, (paths, redirected))) = rayon::join(
            || {
                rayon::join(
                    || {
                        let mut found = Vec::new();
                        let profiles = merge_profiles(graph, config, input.bios, &mut found);
                        (profiles, found)
                    },
                    || convert_texts(graph, config, &input.memo.texts, input.earlier_texts),
                )
            },
            || {
                rayon::join(
                    || paper_lists(graph, &input.memo.lists),
                    || {
                        let paths = page_paths(graph, layout);
                        let (authors, papers) = (&paths.0, &paths.1);
                        let memo = &input.memo.abstract_keys;
                        let redirected =
                            plan_redirects(graph, authors, papers, input.history, memo, layout);
                        (paths, redirected)
                    },
                )
            },
        );
        let ((profiles, mut profile_diagnostics), (paper_texts, mut tex_diagnostics)) =
            (profiled, converted);
        let PaperLists {
            newest,
            subjects,
            years,
        } = by_date;
        let ((author_paths, paper_paths), (redirects, slug_history)) = (paths, redirected);
        diagnostics.append(&mut profile_diagnostics);
        let extra_pages = extra_pages(input.pages, diagnostics);
        diagnostics.append(&mut tex_diagnostics);
        let (citation_keys, (author_letters, author_lists_inline)) = rayon::join(
            || citation_keys(graph, &profiles, &paper_texts, &input.memo.citation_keys),
            || {
                let letters = author_letters(&profiles);
                (
                    letters,
                    inline_author_lists(graph, config, &paper_texts, &profiles),
                )
            },
        );
        let (author_shards, paper_shards) = data_shards_of(graph);
        let mut index = SiteIndex {
            graph,
            config,
            pretty: config.pretty_urls(),
            extra_pages,
            profiles,
            subjects,
            years,
            newest,
            author_paths,
            paper_paths,
            paper_texts,
            citation_keys,
            author_letters,
            author_lists_inline,
            author_shards,
            paper_shards,
            sitemap_paths: Vec::new(),
            sitemap_parts: Vec::new(),
            redirects,
            slug_history,
        };
        index.sitemap_paths = sitemap_paths(&index);
        index.sitemap_parts = super::sitemap_parts(&index.sitemap_paths);
        index
    }

    /// How many pages letter `i` of the authors index takes (at least one).
    pub fn letter_page_count(&self, i: usize) -> usize {
        self.author_letters[i]
            .authors
            .len()
            .div_ceil(super::AUTHORS_PER_PAGE)
            .max(1)
    }

    /// The authors on page `page` (from 0) of letter `i` of the authors index.
    pub fn letter_page(&self, i: usize, page: usize) -> &[AuthorId] {
        let all = &self.author_letters[i].authors;
        let start = (page * super::AUTHORS_PER_PAGE).min(all.len());
        &all[start..(start + super::AUTHORS_PER_PAGE).min(all.len())]
    }

    /// Whether the authors index is too long for one page: it then links to a page per
    /// letter (see [`super::AUTHORS_ON_ONE_PAGE`]).
    pub fn splits_authors_index(&self) -> bool {
        self.graph.authors.len() > super::AUTHORS_ON_ONE_PAGE
    }

    /// The display names of paper `id`'s authors, in order.
    pub fn paper_author_names(&self, id: PaperId) -> Vec<&str> {
        author_names(&self.graph.papers[id], &self.profiles).collect()
    }

    /// The URL a site path is published at (see [`public_url`]).
    pub fn public_url(&self, site_path: &str) -> String {
        public_url(self.config, site_path)
    }

    /// The papers of subject `code`, newest first (none for an unknown code).
    pub fn subject_papers(&self, code: &str) -> &[PaperId] {
        self.subjects.get(code).map_or(&[][..], Vec::as_slice)
    }

    /// The papers of `year`, by title (none for a year without papers).
    pub fn year_papers(&self, year: u16) -> &[PaperId] {
        self.years.get(&year).map_or(&[][..], Vec::as_slice)
    }
}

/// The extra pages in navigation order, without those that would take a reserved URL.
fn extra_pages<'a>(
    pages: &'a [ExtraPage],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<&'a ExtraPage> {
    let mut extra_pages: Vec<&ExtraPage> = pages
        .iter()
        .filter(|p| {
            let reserved = RESERVED_SEGMENTS.contains(&p.slug.as_str());
            if reserved {
                diagnostics.push(
                    Diagnostic::warning(
                        format!(
                            "page `{}` would take the reserved URL /{}/; it is skipped",
                            p.path.display(),
                            p.slug
                        ),
                        Some(Location::at_line(&p.path, 1, 1, "", 1)),
                    )
                    .with_note("rename the file"),
                );
            }
            !reserved
        })
        .collect();
    extra_pages.sort_by(|a, b| {
        a.weight
            .cmp(&b.weight)
            .then_with(|| a.title.cmp(&b.title))
            .then_with(|| a.slug.cmp(&b.slug))
    });
    extra_pages
}

/// The authors grouped by the first letter of their family name.
fn author_letters(profiles: &[Profile]) -> Vec<LetterList> {
    // On every thread: transliterating 200,000 names and sorting them took 60 ms of a
    // rebuild on one.
    // Ordered by the keys' first bytes as numbers ([`crate::slug::order_by_key`]), equal
    // keys by id; each key's letter found as a byte, and a letter's name made once.
    let keys: Vec<String> = (profiles.par_iter())
        .map(|p| family_sort_key(&p.name))
        .collect();
    let letter_of = |key: &str| {
        let first = key.bytes().next().filter(u8::is_ascii_alphabetic);
        first.map_or(b'#', |c| c.to_ascii_uppercase())
    };
    let mut letters: Vec<LetterList> = Vec::new();
    let mut other_names = Vec::new();
    let mut current = None;
    for id in crate::slug::order_by_key(&keys) {
        let letter = letter_of(&keys[id]);
        if letter == b'#' {
            other_names.push(id);
            continue;
        }
        if current != Some(letter) {
            current = Some(letter);
            letters.push(LetterList {
                letter: char::from(letter).to_string(),
                authors: Vec::new(),
            });
        }
        if let Some(group) = letters.last_mut() {
            group.authors.push(id);
        }
    }
    // `#`, names that transliterate to no letter (whose keys sort before `a` or after
    // `z`), goes last, as one list.
    if !other_names.is_empty() {
        letters.push(LetterList {
            letter: "#".to_string(),
            authors: other_names,
        });
    }
    letters
}

/// Sort key for the A-Z index: transliterated family name (last word), then the rest.
fn family_sort_key(name: &str) -> String {
    let ascii = deunicode::deunicode(name).to_lowercase();
    let mut words: Vec<&str> = ascii.split_whitespace().collect();
    match words.pop() {
        Some(last) => format!("{last} {}", words.join(" ")),
        None => String::new(),
    }
}

/// Up to `n` papers of an author's `list` (newest first) nearest to paper `id` in it,
/// alternating newer and older, returned in list order. A paper's neighbours change
/// only when papers next to it in the list do, so adding a paper to a prolific author
/// changes few of their paper pages.
pub fn nearby_papers(list: &[PaperId], id: PaperId, n: usize) -> Vec<PaperId> {
    let Some(position) = list.iter().position(|&p| p == id) else {
        return list.iter().copied().take(n).collect();
    };
    let mut picked = Vec::with_capacity(n);
    let mut step = 1;
    while picked.len() < n && (step <= position || position + step < list.len()) {
        if step <= position {
            picked.push(position - step);
        }
        if picked.len() < n && position + step < list.len() {
            picked.push(position + step);
        }
        step += 1;
    }
    picked.sort_unstable();
    picked.into_iter().map(|i| list[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_shards_hold_every_item_once_in_slug_order() {
        assert_eq!(data_shards(&[]), vec![Vec::<usize>::new()]);
        let mut slugs: Vec<String> = (0..3_001).map(|i| format!("paper-{i}")).collect();
        slugs.sort();
        let slugs: Vec<&str> = slugs.iter().map(String::as_str).collect();
        let shards = data_shards(&slugs);
        assert_eq!(shards.len(), 4, "3,001 items: four shards of about 750");
        let mut all: Vec<usize> = shards.concat();
        all.sort_unstable();
        assert_eq!(all, (0..3_001).collect::<Vec<_>>());
        for shard in &shards {
            assert!((600..900).contains(&shard.len()), "{}", shard.len());
            assert!(shard.windows(2).all(|w| slugs[w[0]] < slugs[w[1]]));
        }
    }

    #[test]
    fn nearby_papers_alternate_around_the_paper() {
        let list = [10, 11, 12, 13, 14, 15];
        assert_eq!(
            nearby_papers(&list, 10, 3),
            [11, 12, 13],
            "newest: only older ones"
        );
        assert_eq!(nearby_papers(&list, 13, 3), [11, 12, 14]);
        assert_eq!(nearby_papers(&list, 15, 3), [12, 13, 14]);
        assert_eq!(nearby_papers(&[10, 11], 11, 3), [10]);
        assert_eq!(nearby_papers(&[10], 10, 3), Vec::<usize>::new());
    }

    #[test]
    fn authors_go_under_their_family_names_letter_and_other_names_under_one_list_last() {
        let names = [
            "Ann {Braces}",
            "Zoë Bauer",
            "Carl 1st",
            "Åsa Ahlberg",
            "Bo Andersson",
            "",
            "Émile Zola",
        ];
        let profiles: Vec<Profile> = (names.iter())
            .map(|name| Profile {
                name: name.to_string(),
                ..Profile::default()
            })
            .collect();
        let letters = author_letters(&profiles);
        let shown: Vec<(&str, &[AuthorId])> = (letters.iter())
            .map(|l| (l.letter.as_str(), l.authors.as_slice()))
            .collect();
        // Keys: "{braces} ann", "bauer zoe", "1st carl", "ahlberg asa", "andersson bo",
        // "", "zola emile": `#` holds those before `a` and after `z`, in key order.
        let expected: [(&str, &[AuthorId]); 4] =
            [("A", &[3, 4]), ("B", &[1]), ("Z", &[6]), ("#", &[5, 2, 0])];
        assert_eq!(shown, expected);
    }

    #[test]
    fn family_name_sorting() {
        assert_eq!(family_sort_key("Zhongbo Zhu"), "zhu zhongbo");
        assert_eq!(family_sort_key("Łukasz Nowak"), "nowak lukasz");
        assert_eq!(family_sort_key(""), "");
    }
}
