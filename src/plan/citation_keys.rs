//! Each paper's citation key, unique across the site, as [`crate::cite::citation_keys`]
//! makes them. A long-running process patches the last build's keys rather than keying
//! half a million papers again ([`KeysMemo`]).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::profiles::Profile;
use super::texts::PaperText;
use crate::cite::{citation_base_key, citation_keys_of_bases, may_share_keys};
use crate::graph::{PaperId, SiteGraph};
use crate::threads::{free_in_background, lock};

/// What a paper's key is made from: its first author's name (if any), year, title as
/// text, and slug (which orders papers sharing a base key).
type KeyInput<'a> = (Option<&'a str>, u16, &'a str, &'a str);

/// The keys of the last build of a long-running process, with what they were made
/// from, by the ids of the link it planned ([`crate::graph::PaperLineage`]).
///
/// A paper the next link takes from that one, whose first author's name is the same
/// and whose title converted to the same text (the very same conversion, which the
/// TeX memo hands on), has the same base key. A key depends only on the papers whose
/// bases may share keys with its own ([`may_share_keys`]: one is the other with
/// letters after it). So a paper keeps its key unless its base is, or extends with
/// letters, the shortest base of the site that a base some paper gained or lost
/// extends (that base's root); only the papers of such bases are keyed again, by the
/// same rule, and past 64 roots every paper is.
#[derive(Default)]
pub struct KeysMemo {
    enabled: bool,
    kept: Mutex<KeptKeys>,
    /// How many papers the last build keyed from their bases.
    keyed: AtomicUsize,
}

impl KeysMemo {
    /// Starts keeping keys for the next build.
    pub fn enable(&mut self) {
        self.enabled = true;
    }

    /// How many papers the last build keyed from their bases: every paper, unless it
    /// patched the keys of the build before.
    pub fn papers_keyed(&self) -> usize {
        self.keyed.load(Relaxed)
    }
}

/// One build's keys with their bases, the count of each base, and how many papers
/// were keyed from their bases.
struct Keyed {
    bases: Vec<String>,
    keys: Vec<String>,
    counts: HashMap<String, u32>,
    keyed: usize,
}

/// One build's keys and what they were made from, by paper id.
#[derive(Default)]
struct KeptKeys {
    /// The link whose ids these are; 0 for none.
    link: u64,
    /// Each paper's first author's name, hashed.
    names: Vec<u64>,
    /// Each paper's converted title and abstract.
    texts: Vec<Arc<PaperText>>,
    /// Each paper's base key.
    bases: Vec<String>,
    /// Each paper's key (shared with the index of that build until it is dropped).
    keys: Arc<Vec<String>>,
    /// Every base key with how many papers have it.
    counts: HashMap<String, u32>,
}

/// Each paper's citation key, unique across the site: patched from the last build's
/// (see [`KeysMemo`]) when its link took papers from that build's, else made afresh;
/// kept for the next build.
pub fn citation_keys(
    graph: &SiteGraph,
    profiles: &[Profile],
    texts: &[Arc<PaperText>],
    memo: &KeysMemo,
) -> Arc<Vec<String>> {
    let inputs: Vec<KeyInput> = (graph.papers.par_iter().enumerate())
        .map(|(id, p)| {
            let first_author = p.authors.first().map(|&a| profiles[a].name.as_str());
            (
                first_author,
                p.year,
                texts[id].title_text.as_str(),
                p.slug.as_str(),
            )
        })
        .collect();
    let kept = std::mem::take(&mut *lock(&memo.kept));
    let keeps = memo.enabled && graph.lineage.link != 0;
    let names: Vec<u64> = match keeps {
        true => inputs
            .par_iter()
            .map(|&(name, ..)| name_hash(name))
            .collect(),
        false => Vec::new(),
    };
    let keyed = match graph.lineage.follows(kept.link) && keeps {
        true => patched(graph, &inputs, (&names, texts), kept),
        false => {
            free_in_background(kept);
            afresh(&inputs, keeps)
        }
    };
    memo.keyed.store(keyed.keyed, Relaxed);
    let keys = Arc::new(keyed.keys);
    if keeps {
        *lock(&memo.kept) = KeptKeys {
            link: graph.lineage.link,
            names,
            texts: texts.to_vec(),
            bases: keyed.bases,
            keys: Arc::clone(&keys),
            counts: keyed.counts,
        };
    }
    keys
}

/// The hash of a first author's name by which a kept base key is known to hold.
fn name_hash(name: Option<&str>) -> u64 {
    crate::hash::key("first author", &name)
}

/// Every paper's key made from nothing; with the bases and their counts for the next
/// build when it `keeps` them (else both empty).
fn afresh(inputs: &[KeyInput], keeps: bool) -> Keyed {
    let bases: Vec<String> = (inputs.par_iter())
        .map(|&(name, year, title, _)| citation_base_key(name, year, title))
        .collect();
    let (keys, bases) = match keeps {
        true => (citation_keys_of_bases(inputs, bases.clone()), bases),
        false => (citation_keys_of_bases(inputs, bases), Vec::new()),
    };
    let mut counts = HashMap::with_capacity(bases.len());
    count_in(&mut counts, &bases);
    Keyed {
        bases,
        keys,
        counts,
        keyed: inputs.len(),
    }
}

/// Counts each of `bases` in `counts`.
fn count_in(counts: &mut HashMap<String, u32>, bases: &[impl AsRef<str>]) {
    for base in bases.iter().map(AsRef::as_ref) {
        match counts.get_mut(base) {
            Some(count) => *count += 1,
            None => _ = counts.insert(base.to_string(), 1),
        }
    }
}

/// Takes each of `bases` off `counts`, leaving out those no paper has any more.
fn count_out(counts: &mut HashMap<String, u32>, bases: &[String]) {
    for base in bases {
        if let Some(count) = counts.get_mut(base) {
            *count -= 1;
            if *count == 0 {
                counts.remove(base);
            }
        }
    }
}

/// Above this many bases akin to a change, every paper is keyed again: finding which
/// papers are akin to each would cost more.
const MAX_ROOTS: usize = 64;

/// The keys of `graph`'s papers made from the `kept` keys of the link its papers were
/// taken from (see [`KeysMemo`]), with their bases and counts for the next build.
fn patched(
    graph: &SiteGraph,
    inputs: &[KeyInput],
    (names, texts): (&[u64], &[Arc<PaperText>]),
    kept: KeptKeys,
) -> Keyed {
    let KeptKeys {
        link,
        names: kept_names,
        texts: kept_texts,
        bases: kept_bases,
        keys: kept_keys,
        mut counts,
    } = kept;
    // Each paper's place among the kept ones, if its base is the one kept there.
    let was: Vec<Option<PaperId>> = (0..inputs.len())
        .into_par_iter()
        .map(|id| {
            let was = graph.lineage.previous_id(id, link)?;
            let same_name = kept_names.get(was) == Some(&names[id]);
            let same_text = kept_texts
                .get(was)
                .is_some_and(|t| Arc::ptr_eq(t, &texts[id]));
            (same_name && same_text).then_some(was)
        })
        .collect();
    free_in_background(kept_texts);
    let (bases, gone) = carry_bases(inputs, &was, kept_bases);
    let added: Vec<&str> = (was.iter().zip(&bases))
        .filter(|(was, _)| was.is_none())
        .map(|(_, base)| base.as_str())
        .collect();
    count_out(&mut counts, &gone);
    count_in(&mut counts, &added);
    let changed: HashSet<&str> = gone.iter().map(String::as_str).chain(added).collect();
    let mut roots: Vec<&str> = (changed.iter())
        .map(|base| root_of(base, |b| counts.contains_key(b) || changed.contains(b)))
        .collect();
    roots.sort_unstable();
    roots.dedup();
    if roots.len() > MAX_ROOTS {
        return Keyed {
            keys: citation_keys_of_bases(inputs, bases.clone()),
            bases,
            counts,
            keyed: inputs.len(),
        };
    }
    // Every paper not carried over is akin to a root; listed as well, to be sure.
    let again: Vec<PaperId> = (0..inputs.len())
        .into_par_iter()
        .filter(|&id| was[id].is_none() || roots.iter().any(|r| may_share_keys(&bases[id], r)))
        .collect();
    let keyed = again.len();
    let again_inputs: Vec<KeyInput> = again.iter().map(|&id| inputs[id]).collect();
    let again_bases: Vec<String> = again.iter().map(|&id| bases[id].clone()).collect();
    let mut made = citation_keys_of_bases(&again_inputs, again_bases).into_iter();
    let mut kept_keys = Arc::try_unwrap(kept_keys).unwrap_or_else(|shared| shared.to_vec());
    let mut again = again.into_iter().peekable();
    let keys = (0..inputs.len())
        .map(|id| match (again.next_if_eq(&id), was[id]) {
            (None, Some(was)) => std::mem::take(&mut kept_keys[was]),
            _ => made.next().unwrap_or_default(),
        })
        .collect();
    free_in_background((kept_keys, gone));
    Keyed {
        bases,
        keys,
        counts,
        keyed,
    }
}

/// Each paper's base key, taken from the kept ones (`kept_bases`, at each paper's
/// place there, `was`) or else made; and the kept bases no paper was carried from.
fn carry_bases(
    inputs: &[KeyInput],
    was: &[Option<PaperId>],
    mut kept_bases: Vec<String>,
) -> (Vec<String>, Vec<String>) {
    let mut made: Vec<Option<String>> = (inputs.par_iter().zip(was))
        .map(|(&(name, year, title, _), was)| {
            was.is_none().then(|| citation_base_key(name, year, title))
        })
        .collect();
    let mut carried = vec![false; kept_bases.len()];
    let bases = (was.iter().zip(&mut made))
        .map(|(was, made)| match was {
            Some(was) => {
                carried[*was] = true;
                std::mem::take(&mut kept_bases[*was])
            }
            None => made.take().unwrap_or_default(),
        })
        .collect();
    let gone = (kept_bases.into_iter().zip(carried))
        .filter(|(_, carried)| !carried)
        .map(|(base, _)| base)
        .collect();
    (bases, gone)
}

/// The shortest of `base` and the bases it is with letters after ([`may_share_keys`]),
/// by `is_base`: every base akin to `base` is this one with letters after it.
fn root_of(base: &str, is_base: impl Fn(&str) -> bool) -> &str {
    let letters = base
        .bytes()
        .rev()
        .take_while(u8::is_ascii_lowercase)
        .count();
    (base.len() - letters..=base.len())
        .map(|end| &base[..end])
        .find(|prefix| is_base(prefix))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SiteConfig;
    use crate::graph::LinkMemo;
    use crate::identity::IdentityRules;
    use crate::plan::texts::{convert_texts, TextsMemo};
    use crate::records::RecordFile;

    fn file(path: &str, author: &str, titles: &[&str]) -> Arc<RecordFile> {
        let path = format!("content/records/{path}");
        let file = RecordFile::for_test((&path, author), titles, (2024, "math.AG"), |_| None);
        Arc::new(file)
    }

    /// Builds as a long-running process does, keeping the link, the conversions and
    /// the keys; checks each build's keys against keys made without a memo, and
    /// gives them with how many papers were keyed.
    struct Builds {
        links: LinkMemo,
        texts: TextsMemo,
        keys: KeysMemo,
    }

    impl Builds {
        fn new() -> Builds {
            let mut builds = Builds {
                links: LinkMemo::default(),
                texts: TextsMemo::default(),
                keys: KeysMemo::default(),
            };
            builds.links.enable();
            builds.texts.enable();
            builds.keys.enable();
            builds
        }

        fn build(&mut self, files: &[Arc<RecordFile>]) -> (Vec<String>, usize) {
            self.links.hold_files(files);
            let rules = IdentityRules::default();
            let mut graph = crate::graph::link_with(files, &rules, &self.links);
            let config = SiteConfig::default();
            let (texts, _) = convert_texts(&graph, &config, &self.texts, None);
            self.texts.finish_build();
            let profiles: Vec<Profile> = (graph.authors.iter())
                .map(|a| Profile {
                    name: a.name.clone(),
                    ..Default::default()
                })
                .collect();
            let keys = citation_keys(&graph, &profiles, &texts, &self.keys);
            let afresh = citation_keys(&graph, &profiles, &texts, &KeysMemo::default());
            assert_eq!(keys, afresh, "the keys a build without a memo makes");
            self.links.keep_papers(&mut graph);
            (keys.to_vec(), self.keys.papers_keyed())
        }
    }

    #[test]
    fn a_patched_build_keys_only_the_papers_akin_to_a_change() {
        let mut builds = Builds::new();
        let ada = file("ada.txt", "Ada Lovelace", &["On Engines", "Engines Again"]);
        // Its base is the first suffixed key of the two above: it takes it, and they
        // go on to the next.
        let akin = file("ada2.txt", "Ada Lovelace", &["Enginesa"]);
        let bo = file("bo.txt", "Bo Li", &["Tables", "Chairs"]);
        let (first, keyed) = builds.build(&[Arc::clone(&ada), Arc::clone(&bo)]);
        assert_eq!(keyed, 4, "a first build keys every paper");
        assert!(
            first.contains(&"lovelace2024enginesa".to_string()),
            "{first:?}"
        );

        let (second, keyed) = builds.build(&[Arc::clone(&ada), Arc::clone(&akin), Arc::clone(&bo)]);
        assert_eq!(
            keyed, 3,
            "the added paper and the two it is akin to: {second:?}"
        );
        let mut lovelace: Vec<&str> = (second.iter())
            .filter(|k| k.starts_with("lovelace"))
            .map(String::as_str)
            .collect();
        lovelace.sort_unstable();
        assert_eq!(
            lovelace,
            [
                "lovelace2024engines",
                "lovelace2024enginesa",
                "lovelace2024enginesb"
            ]
        );

        // Removed again: the two take back the key the third had.
        let (third, keyed) = builds.build(&[Arc::clone(&ada), Arc::clone(&bo)]);
        assert_eq!(third, first);
        assert_eq!(keyed, 2, "the two papers akin to the removed one");

        // The first author renamed: that author's papers have new bases.
        let renamed = file("ada.txt", "Ada King", &["On Engines", "Engines Again"]);
        let (fourth, keyed) = builds.build(&[Arc::clone(&renamed), Arc::clone(&bo)]);
        assert_eq!(keyed, 2, "{fourth:?}");
        assert!(
            fourth.contains(&"king2024enginesa".to_string()),
            "{fourth:?}"
        );

        // The same files again: nothing to key.
        let (same, keyed) = builds.build(&[Arc::clone(&renamed), Arc::clone(&bo)]);
        assert_eq!((same, keyed), (fourth, 0));
    }

    /// Past [`MAX_ROOTS`] bases akin to a change, every paper is keyed again, to the
    /// same keys.
    #[test]
    fn a_change_to_many_bases_keys_every_paper() {
        let mut builds = Builds::new();
        let bo = file("bo.txt", "Bo Li", &["Tables", "Chairs"]);
        let (first, keyed) = builds.build(&[Arc::clone(&bo)]);
        assert_eq!((first.len(), keyed), (2, 2));
        let words = [
            "alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "theta",
        ];
        let titles: Vec<String> = (words.iter())
            .flat_map(|a| words.iter().map(move |b| format!("{a}{b} Flows")))
            .chain(["Tablesa".to_string(), "Chairsb".to_string()])
            .collect();
        let titles: Vec<&str> = titles.iter().map(String::as_str).collect();
        let many = file("ada.txt", "Bo Li", &titles);
        let (second, keyed) = builds.build(&[Arc::clone(&many), Arc::clone(&bo)]);
        assert!(titles.len() + 2 > MAX_ROOTS);
        assert_eq!((second.len(), keyed), (titles.len() + 2, titles.len() + 2));
        assert!(second.contains(&"li2024tablesa".to_string()), "{second:?}");
    }

    #[test]
    fn a_root_is_the_shortest_base_a_base_extends_with_letters() {
        let bases = ["smith2020", "smith2020quantum", "smith2020quant"];
        let is_base = |b: &str| bases.contains(&b);
        assert_eq!(root_of("smith2020quantuma", is_base), "smith2020");
        assert_eq!(root_of("smith2020", is_base), "smith2020");
        // Digits end the letters: "smith202" is not a root of "smith2020x".
        assert_eq!(
            root_of("jones2020x", |b| b == "jones2020x" || b == "jones202"),
            "jones2020x"
        );
        assert!(may_share_keys("smith2020quantum", "smith2020"));
        assert!(!may_share_keys("smith2021quantum", "smith2020"));
        assert!(!may_share_keys("smith2020Quantum", "smith2020"));
    }
}
