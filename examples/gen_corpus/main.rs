//! Deterministic synthetic corpus generator for profilegen.
//!
//! Writes one author record file per author into `OUT_DIR` (created if missing), named
//! `a00000.txt`, `a00001.txt`, ... (zero-padded, so sorted file order is author order), in
//! exactly the format of the real exports described in `shared/RECORDS.md`: blocks separated
//! by one blank line, the banner `arXiv subjects`, the author's name, the attribution line,
//! `N recordsLinked to original sources`, then the records newest first, each as a
//! source-year block (`arXiv2024`, occasionally `bioRxiv2019`), a title line, a one-line
//! abstract and the subject code followed by `↗` (U+2197). There is no newline at the end of
//! a file.
//!
//! ```text
//! cargo run --release --example gen_corpus -- [--shape default|arxiv] \
//!     [--papers N] [--authors N] [--seed N] [--messy] [--stats] OUT_DIR
//! ```
//!
//! The output depends only on the arguments: the same arguments give byte-identical files.
//! Files of an earlier run with more authors are not removed, so use a fresh directory.
//!
//! # The default shape
//!
//! The corpus of the benchmarks and of CI. Defaults: `--papers 10000 --authors 2000
//! --seed 1`, which gives about 50 MB. It contains:
//!
//! - exactly `--papers` distinct papers and `--authors` distinct author names; every author
//!   lists at least one paper and every paper is listed by 1 to 8 authors, with identical
//!   title, year, abstract and subject in each of its authors' files;
//! - skewed authorship: the first three authors list 10-15% of all papers each (1,000-1,500
//!   for the defaults), most list 5-40, a few list 1-4, and the last author lists exactly one
//!   (so `1 recordLinked to original sources` occurs);
//! - years 1995-2026 (skewed recent), about forty real arXiv subject codes (skewed towards
//!   `cs.LG`, `cs.CL`, `cs.CV`, ...), names with accents and non-Latin letters;
//! - titles distinct per paper (compared by lower-cased letters and digits only) except two
//!   deliberate cases: one author lists two different papers with identical titles (different
//!   years and abstracts), and two papers with no author in common share a title (different
//!   years);
//! - every 50th abstract contains inline TeX (`$P_Z$`, `\textbf{V}ariational`), every 100th
//!   title or abstract contains `<`, `&` and quotes, some abstracts contain URLs, and a few
//!   titles and abstracts end in a four-digit year.
//!
//! # The arxiv shape
//!
//! `--shape arxiv` makes a corpus shaped like a real arXiv author-file corpus; with
//! `--papers N` alone it has, per 100,000 papers:
//!
//! - about 43,500 files (`--authors` defaults to 0.435 times `--papers`; the number of
//!   files grows in proportion, so does everything below);
//! - 2.4 files per paper on average, median 2, 66% of the papers in two or more files, one
//!   paper in 20,000 in 200-500 files (large collaborations);
//! - records per file: median 3, 90th percentile 11, 99th percentile 37, the largest file
//!   about 740 (at any size from 100,000 papers up);
//! - co-authors in teams that write several papers together, within a field;
//! - the 172 subject codes that arXiv records carry (157 current ones and 15 archives of the
//!   1990s such as `alg-geom`), about as frequent as on arXiv (`cs.LG` 5.5%, `cs.CV`,
//!   `quant-ph`, `hep-ph` about 4% each, ..., `cs.GL` 0.01%), and vocabulary of the field;
//! - 32 years, 1995-2026, growing like arXiv's yearly submissions;
//! - titles of 75 characters and abstracts of 1,000 characters on average (80% of the
//!   abstracts between 500 and 1,600), as in real arXiv data; a quarter of the abstracts and
//!   5% of the titles with `$...$` math (`$\alpha$`, `$O(n\log n)$`, `$\mathbb{R}^n$`, ...), of
//!   which one fragment in 40 uses a macro that only the paper's own source would define
//!   (`$\R^n$`), so that a renderer reports it;
//! - 2.5% of the names with letters outside ASCII (`José Núñez`, `王伟`), the rest spelled
//!   as arXiv does; a name may occur in two files (a few per cent of the files in large
//!   corpora), as in real ones;
//! - a few titles that several papers share (`Erratum`, `Comment`, ...).
//!
//! It streams: apart from titles and the authorship lists nothing is held for the whole
//! corpus, each abstract is made again from the paper's own random stream for every file
//! that lists it, and files are written in parallel. 500,000 papers take about 15 seconds
//! and 120 MB. See `arxiv.rs` for how the authorship is built.
//!
//! # Options for both shapes
//!
//! With `--messy` the corpus additionally has: files with CRLF line endings (author index
//! `% 13 == 3`), files starting with a UTF-8 BOM (`% 19 == 7`), files with trailing spaces,
//! whitespace-only blank lines, runs of several blank lines and sometimes a trailing newline
//! (`% 11 == 5`). In the default shape it also has: one paper without an abstract (title
//! directly followed by the subject); one paper with a two-paragraph abstract; one file whose
//! declared count is two more than the records present; a paper titled
//! `<script>alert(1)</script> Attack`; and one co-author's file giving a paper's title with
//! different case and punctuation. Without `--messy` the output is clean.
//!
//! A one-line summary (files, records, papers, bytes) is printed to stderr. `--stats` adds
//! the measured shape: files per paper (mean, median, share in two or more files), records
//! per file (median, 90th and 99th percentiles, largest), distinct co-authors, subjects,
//! years, title and abstract lengths, the share with math, and the share of non-ASCII names.
//! Bad arguments print the usage and exit with code 2.

mod arxiv;
mod stats;

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;

const USAGE: &str = "\
usage: gen_corpus [--shape default|arxiv] [--papers N] [--authors N] [--seed N] [--messy]
                  [--stats] OUT_DIR

  --shape S     default: the benchmarks' corpus (a few very prolific authors, 1 to 8
                files per paper, machine-learning vocabulary); arxiv: shaped like a
                real arXiv author-file corpus (see the documentation of the example)
  --papers N    number of distinct papers (default 10000; 1 to 10000000)
  --authors N   number of author files (default 2000, or 0.435 times --papers with
                --shape arxiv; 1 to 5000000, and at most 8 times the number of papers)
  --seed N      seed of the generator, an unsigned 64-bit integer (default 1)
  --messy       also write CRLF files, BOMs, trailing spaces, runs of blank lines and
                (default shape only) other quirks real exports have
  --stats       also print the measured shape: files per paper, records per file,
                co-authors, subjects, years, lengths, math, names
  OUT_DIR       output directory, created if missing";

const MAX_AUTHORS_PER_PAPER: usize = 8;
const MAX_PAPERS: usize = 10_000_000;
const MAX_AUTHORS: usize = 5_000_000;
const MIN_YEAR: u16 = 1995;
const MAX_YEAR: u16 = 2026;
const PROLIFIC: usize = 3;

// ---------------------------------------------------------------------------------------
// Arguments

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Default,
    Arxiv,
}

struct Config {
    shape: Shape,
    papers: usize,
    authors: usize,
    seed: u64,
    messy: bool,
    stats: bool,
    out: PathBuf,
}

enum Parsed {
    Run(Config),
    Help,
}

fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, String> {
    let mut shape = Shape::Default;
    let mut papers = 10_000usize;
    let mut authors: Option<usize> = None;
    let mut seed = 1u64;
    let mut messy = false;
    let mut stats = false;
    let mut out: Option<PathBuf> = None;
    let mut only_positional = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let text = arg.to_str().map(str::to_owned);
        let is_option = !only_positional
            && text
                .as_deref()
                .is_some_and(|t| t.starts_with('-') && t.len() > 1);
        if !is_option {
            if out.is_some() {
                return Err(format!(
                    "more than one output directory: {}",
                    arg.to_string_lossy()
                ));
            }
            out = Some(PathBuf::from(arg));
            continue;
        }
        let text = text.unwrap_or_default();
        let (flag, inline) = match text.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (text.clone(), None),
        };
        match flag.as_str() {
            "--" if inline.is_none() => only_positional = true,
            "-h" | "--help" => return Ok(Parsed::Help),
            "--messy" | "--stats" => {
                if inline.is_some() {
                    return Err(format!("{flag} takes no value"));
                }
                if flag == "--messy" {
                    messy = true;
                } else {
                    stats = true;
                }
            }
            "--shape" => {
                let value = match inline {
                    Some(v) => v,
                    None => args
                        .next()
                        .and_then(|v| v.into_string().ok())
                        .ok_or("--shape needs a name: default or arxiv")?,
                };
                shape = match value.as_str() {
                    "default" => Shape::Default,
                    "arxiv" => Shape::Arxiv,
                    _ => return Err(format!("--shape: unknown shape {value:?} (default, arxiv)")),
                };
            }
            "--papers" | "--authors" | "--seed" => {
                let value = match inline {
                    Some(v) => v,
                    None => args
                        .next()
                        .and_then(|v| v.into_string().ok())
                        .ok_or_else(|| format!("{flag} needs a number"))?,
                };
                let n: u64 = value
                    .parse()
                    .map_err(|_| format!("{flag}: not an unsigned integer: {value:?}"))?;
                match flag.as_str() {
                    "--seed" => seed = n,
                    "--papers" => papers = usize::try_from(n).unwrap_or(usize::MAX),
                    _ => authors = Some(usize::try_from(n).unwrap_or(usize::MAX)),
                }
            }
            _ => return Err(format!("unknown option: {text}")),
        }
    }
    let out = out.ok_or("missing OUT_DIR")?;
    if !(1..=MAX_PAPERS).contains(&papers) {
        return Err(format!("--papers must be between 1 and {MAX_PAPERS}"));
    }
    let authors = authors.unwrap_or(match shape {
        Shape::Default => 2_000,
        Shape::Arxiv => ((papers as f64 * arxiv::AUTHORS_PER_PAPER).round() as usize).max(1),
    });
    if !(1..=MAX_AUTHORS).contains(&authors) {
        return Err(format!("--authors must be between 1 and {MAX_AUTHORS}"));
    }
    if authors > papers * MAX_AUTHORS_PER_PAPER {
        return Err(format!(
            "--authors {authors} is more than {MAX_AUTHORS_PER_PAPER} times --papers {papers}: \
             some author would have no paper"
        ));
    }
    Ok(Parsed::Run(Config {
        shape,
        papers,
        authors,
        seed,
        messy,
        stats,
        out,
    }))
}

// ---------------------------------------------------------------------------------------
// Random numbers: splitmix64, one independent stream per purpose.

const STREAM_NAMES: u64 = 1;
const STREAM_TARGETS: u64 = 2;
const STREAM_SIZES: u64 = 3;
const STREAM_AUTHORSHIP: u64 = 4;
const STREAM_PAPERS: u64 = 5;
const STREAM_STYLE: u64 = 1 << 32;

struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64) -> Rng {
        let mut rng = Rng(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        rng.next_u64();
        rng
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `num / den`.
    fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn pick(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }

    fn weighted<T: Copy>(&mut self, items: &[(T, u32)]) -> T {
        let total: u32 = items.iter().map(|&(_, w)| w).sum();
        let mut r = self.below(total as usize) as u32;
        for &(item, w) in items {
            if r < w {
                return item;
            }
            r -= w;
        }
        items[items.len() - 1].0
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Vocabulary

const SUBJECTS: &[(&str, u32)] = &[
    ("cs.LG", 200),
    ("cs.CL", 110),
    ("cs.CV", 90),
    ("cs.AI", 60),
    ("cs.DC", 45),
    ("stat.ML", 40),
    ("cs.CR", 20),
    ("cs.RO", 18),
    ("eess.SY", 16),
    ("math.OC", 15),
    ("cs.IR", 12),
    ("cs.SE", 12),
    ("quant-ph", 12),
    ("eess.SP", 11),
    ("cs.NE", 10),
    ("cs.AR", 10),
    ("cs.DS", 9),
    ("cs.NI", 9),
    ("eess.IV", 8),
    ("cs.HC", 7),
    ("cs.SI", 7),
    ("cs.DB", 6),
    ("cs.PL", 6),
    ("cs.CY", 6),
    ("eess.AS", 5),
    ("math.ST", 5),
    ("math.NA", 5),
    ("physics.soc-ph", 5),
    ("cond-mat.stat-mech", 5),
    ("physics.comp-ph", 4),
    ("hep-ex", 4),
    ("hep-ph", 4),
    ("hep-th", 4),
    ("astro-ph.IM", 4),
    ("astro-ph.CO", 4),
    ("math.PR", 4),
    ("q-fin.GN", 3),
    ("q-fin.ST", 3),
    ("econ.EM", 3),
    ("gr-qc", 3),
    ("nlin.AO", 2),
    ("q-bio.NC", 3),
];

const BIO_SUBJECTS: &[&str] = &["q-bio.NC", "q-bio.GN", "q-bio.QM", "q-bio.BM", "q-bio.PE"];

const FIXED_NAMES: &[&str] = &[
    "Łukasz Wiśniewski",
    "Wei Zhang",
    "Zoë Ærøskøbing",
    "Staša Milojević",
    "王伟",
    "José Núñez",
];

const FIRST_NAMES: &str = "\
    James, Maria, Wei, Ana, Łukasz, Zoë, Staša, José, Søren, Björn, Ingrid, Chloé, \
    François, Jürgen, Ilse, Mateus, João, Ángel, Inés, Răzvan, Dóra, Ömer, Çağla, Thảo, \
    Priya, Arjun, Aoife, Siobhán, Niamh, Małgorzata, Krzysztof, Jiří, Tomáš, Zdeněk, \
    Émilie, Hélène, Noémie, Håkon, Åsa, Kristín, Þórunn, Ayşe, Yusuf, Fatima, Olumide, \
    Chinedu, Kwame, Amara, Hiroshi, Yuki, Sven, Lars, Olga, Dmitri, Elena, Giulia, Marco, \
    Luca, Sofia, Emma, Liam, Noah, Olivia, Ethan, Mia, Lucas, Hannah, David, Sarah, \
    Michael, Laura, Daniel, Anna, Thomas, Julia, Bor-Yiing, Zhongbo, Shunkang, Xiaoming, \
    Jae-won, Min-jun, Seo-yeon, Raúl, Martín, Sebastián, Valentina, Camila, Agustín, \
    Mehmet, Nadia, Rafael";

const LAST_NAMES: &str = "\
    Smith, Johnson, Zhang, Wang, Li, Chen, Liu, Kim, Park, Lee, Nguyen, Garcia, Martínez, \
    Rodríguez, Fernández, González, Núñez, Pérez, Müller, Schröder, Weiß, Groß, Köhler, \
    Dvořák, Novák, Svoboda, Wiśniewski, Kowalczyk, Wójcik, Łukasiewicz, Milojević, \
    Jovanović, Petrović, Nørgaard, Østergård, Ærøskøbing, Sørensen, Åström, Lindqvist, \
    Björklund, Håkansson, Çelik, Yılmaz, Şahin, Öztürk, Dubois, Lefèvre, Moreau, Béranger, \
    Rossi, Bianchi, Esposito, Costa, Conceição, Gonçalves, Magalhães, O'Brien, Ní Bhriain, \
    Murphy, Singh, Patel, Sharma, Iyer, Okafor, Adeyemi, Mensah, Tanaka, Suzuki, Watanabe, \
    Sato, Kuznetsov, Popescu, Ionescu, Nagy, Szabó, Tóth, Horváth, Papadopoulos, Georgiou, \
    van der Berg, de Souza, Su, Zhu, Nakamura, Haddad, Brennan";

const CJK_FAMILY: &[&str] = &["王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴"];
const CJK_GIVEN: &[&str] = &[
    "伟", "芳", "娜", "秀英", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳", "杰", "娟",
    "晓明",
];
const HANGUL_FAMILY: &[&str] = &["김", "이", "박", "최", "정"];
const HANGUL_GIVEN: &[&str] = &["민준", "서연", "지우", "하은", "도윤", "서준"];
const CYRILLIC_FIRST: &[&str] = &["Дмитрий", "Алексей", "Сергей", "Андрей", "Павел"];
const CYRILLIC_LAST: &[&str] = &["Иванов", "Смирнов", "Кузнецов", "Попов", "Соколов"];
const GREEK_FIRST: &[&str] = &["Νίκος", "Γιώργος", "Δημήτρης", "Κώστας"];
const GREEK_LAST: &[&str] = &["Παπαδόπουλος", "Γεωργίου", "Νικολάου", "Οικονόμου"];

const ADJECTIVES: &str = "\
    scalable, efficient, robust, adaptive, sparse, dense, hierarchical, distributed, \
    federated, decentralized, probabilistic, stochastic, deterministic, differentiable, \
    interpretable, causal, contrastive, generative, discriminative, variational, Bayesian, \
    latent, multimodal, multilingual, low-rank, high-dimensional, nonconvex, convex, \
    online, offline, asynchronous, parallel, heterogeneous, lightweight, energy-efficient, \
    fault-tolerant, privacy-preserving, self-supervised, semi-supervised, unsupervised, \
    zero-shot, few-shot, long-context, mixed-precision, quantum, spectral, geometric, \
    topological, temporal, spatiotemporal, dynamic, implicit, explicit, neural, symbolic, \
    neuro-symbolic, provable, optimal, near-optimal, approximate, certified, secure, \
    verifiable, modular, unified, universal, structured, noisy, incremental, continual, \
    hybrid, equivariant, invariant, nonparametric, fine-grained, coarse-grained, \
    multi-agent, real-time";

const NOUNS: &str = "\
    model, network, transformer, encoder, decoder, gradient, optimizer, scheduler, cache, \
    kernel, tensor, graph, embedding, representation, policy, agent, controller, estimator, \
    classifier, detector, sampler, compiler, runtime, protocol, consensus, ledger, cluster, \
    accelerator, pipeline, benchmark, dataset, corpus, retrieval, inference, training, \
    quantization, compression, distillation, attention, diffusion, convolution, \
    regularization, calibration, uncertainty, robustness, fairness, privacy, latency, \
    throughput, memory, bandwidth, topology, manifold, spectrum, operator, solver, \
    simulation, trajectory, signal, channel, antenna, radar, sensor, grid, market, \
    portfolio, volatility, galaxy, telescope, collider, neutrino, lattice, spin, phase, \
    transition, epidemic, population, community, opinion, language, translation, \
    summarization, reasoning, planning, navigation, manipulation, segmentation, \
    reconstruction, rendering, scene, image, video, speech, audio, protein, genome, cell, \
    neuron, circuit, processor, workload, storage, database, query, index, search, \
    recommendation, feedback, reward, exploration, game, equilibrium, mechanism, auction, \
    regression, prior, posterior, likelihood, divergence, entropy, mixture-of-experts, \
    routing, sparsity, GPU, LLM, alignment, tokenizer, decoding, forecasting, anomaly, \
    drift, federation, shard";

const PLURALS: &str = "\
    datasets, benchmarks, tasks, models, workloads, graphs, clusters, environments, \
    languages, domains, sensors, trajectories, images, videos, proteins, genomes, markets, \
    galaxies, queries, devices, networks, agents";

const GERUNDS: &str = "\
    learning, scaling, training, optimizing, compressing, predicting, estimating, \
    detecting, accelerating, rethinking, understanding, benchmarking, characterizing, \
    modeling, controlling, routing, scheduling, sampling, aligning, distilling, pruning, \
    tracking, forecasting, verifying";

const VERBS: &str = "\
    improves, reduces, outperforms, captures, exploits, achieves, enables, mitigates, \
    preserves, accelerates, generalizes to, bounds, approximates, recovers, leverages, \
    decouples, unifies, stabilizes, subsumes, amortizes";

const PARTICIPLES: &str = "\
    learned, estimated, approximated, recovered, optimized, compressed, parallelized, \
    calibrated, verified, distilled, quantized, inferred";

const SYS_HEADS: &[&str] = &[
    "Expert", "Flash", "Deep", "Hyper", "Meta", "Graph", "Quant", "Sparse", "Neuro", "Mega",
    "Omni", "Tiny", "Fast", "Auto", "Lumen", "Pico", "Zeta", "Orca", "Cobalt", "Vela",
];
const SYS_TAILS: &[&str] = &[
    "Flow", "Net", "Former", "Mix", "Tune", "Cache", "Scope", "Pilot", "Bench", "Sched", "Shard",
    "Lens", "Forge", "Gate", "Route", "Sense",
];
const SYLLABLES: &[&str] = &[
    "ki", "mad", "ra", "lo", "ven", "tu", "zor", "na", "mi", "quo", "sel", "dar", "pho", "ix",
];

const TITLE_TEMPLATES: &[&str] = &[
    "{sys}: {g} {np} for {np}",
    "{sys}: {a} {np} via {np}",
    "{g} {np} with {np}",
    "On the {n} of {np} in {np}",
    "Towards {a} {np} for {np}",
    "{np} via {g} {np}",
    "{a} {np} under {np}",
    "Rethinking {np} for {np}",
    "A {a} {n} for {g} {np}",
    "{np}: A {a} {n} of {np}",
    "When Does {np} Help {np}?",
    "{np} Meets {np}",
    "{sys}: {g} {a} {cn} at Scale",
];

const TITLE_TAILS: &[&str] = &[
    " with {np}",
    " for {np}",
    " in {np}",
    " at Scale",
    " under {a} {n}",
    " and {np}",
    " via {np}",
    " on {a} {cn}",
];

/// Titles with `<`, `&` and quotes (every 200th paper).
const SPECIAL_TITLES: &[&str] = &[
    "Q&A over {np}: When \"Robust\" Means <1% Error",
    "R&D for {np}: \"Honest\" Baselines and <k Neighbours",
    "Don't Trust the \"Oracle\": {np} & {np}",
    "{sys} & {sys}: Comparing 'Robust' {np} with <5% Overhead",
];

/// Abstract sentences with `<`, `&` and quotes (every 200th paper, offset by 100).
const SPECIAL_SENTENCES: &[&str] = &[
    "We report results on the AT&T and P&G traces, where latency stays < 5 ms and \"tail\" effects dominate.",
    "Inputs such as <a href=\"x\"> & </a> are treated as 'unsafe' markup by the \"sanitizer\" stage.",
    "The so-called \"cold start\" regime (n < 1000 & d > 50) is where 'naive' methods fail.",
];

/// Abstract sentences with inline TeX (every 50th paper).
const TEX_SENTENCES: &[&str] = &[
    "By noticing that both the prior $P_Z$ and the aggregated posterior $Q_Z$ of the latent code are close to Gaussian, we obtain a closed form.",
    "We call the resulting model \\textbf{V}ariational \\textbf{A}daptive \\textbf{R}outing (VAR).",
    "The estimator attains a rate of $\\mathcal{O}(n^{-1/2} \\log n)$ under mild assumptions.",
    "Our bound depends only on $\\|\\theta\\|_2$ and on the $\\alpha$-mixing coefficient of the data.",
    "Empirically, the \\emph{effective} rank satisfies $r_{\\mathrm{eff}} \\leq 2k$ for all $k \\geq 1$.",
];

const OPENERS: &[&str] = &[
    "{np} has become a central problem in {np} and {np}.",
    "In recent years, {np} has attracted considerable attention from the {n} community.",
    "Recent advances in {np} have enabled {a} progress on {np}, yet {np} remains poorly understood.",
    "Despite significant progress in {np}, existing approaches to {np} still suffer from {a} {n} and {a} {n}.",
    "Modern {np} systems increasingly rely on {np} to cope with {a} {n}.",
    "This paper investigates how {np} interacts with {np} in {a} settings.",
];

const SENTENCES: &[&str] = &[
    "We propose {sys}, a {a} {n} that {v} {np} through {a} {n}.",
    "Unlike prior work on {np}, {sys} {v} {np} without requiring {a} {n}.",
    "The key insight is that {np} can be {pp} from {np} at {a} cost.",
    "Concretely, we formulate {np} as a {a} {n} problem and solve it with a {a} {n}.",
    "Our analysis shows that {np} {v} {np} under {a} assumptions on the {n}.",
    "We further establish {a} bounds on the {n} of {np}, which {v} {np} in the {a} regime.",
    "To this end, we introduce a {a} {n} that decouples {np} from {np}.",
    "Experiments on {int} benchmark datasets show that {sys} {v} {a} baselines by up to {pct}%.",
    "On {np}, it achieves {pct}% higher {n} while using {int}x less {n}.",
    "In addition, we develop a {a} {n} for {g} {np}, together with a {a} {n} for {np}.",
    "Extensive ablations confirm that both the {n} and the {n} are necessary for {a} {n}.",
    "However, {np} remains challenging because of {a} {n}, {a} {n}, and {a} {n}.",
    "We also release a {a} {n} of {int} {cn} to facilitate research on {np}.",
    "Moreover, the proposed {n} is {a}, {a}, and compatible with {a} {np}.",
    "These findings suggest that {np} is a {a} alternative to {np} for {np}.",
    "Finally, we discuss {a} implications of our results for {np} and {np}.",
    "Our approach combines {np} with {np}, yielding a {a} {n} that is easy to deploy.",
    "Theoretical guarantees are complemented by {a} simulations of {np} -- including {a} {cn}.",
    "We validate {sys} on {int} real-world {cn}, where it consistently {v} {np}.",
    "Empirically, {sys} reduces {n} by {pct}% and improves {n} by {pct}% on average.",
    "The framework also supports {a} {np}, {a} {np}, and {a} {np} (e.g., {a} {cn}).",
    "A key challenge is that {np} is {a} and {a}, which makes {g} {np} difficult.",
];

/// The longer word lists above, split at commas.
struct Vocab {
    first_names: Vec<&'static str>,
    last_names: Vec<&'static str>,
    adjectives: Vec<&'static str>,
    nouns: Vec<&'static str>,
    plurals: Vec<&'static str>,
    gerunds: Vec<&'static str>,
    verbs: Vec<&'static str>,
    participles: Vec<&'static str>,
}

/// The words of a comma-separated word list.
fn list(text: &'static str) -> Vec<&'static str> {
    text.split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect()
}

fn vocab() -> &'static Vocab {
    static VOCAB: OnceLock<Vocab> = OnceLock::new();
    VOCAB.get_or_init(|| Vocab {
        first_names: list(FIRST_NAMES),
        last_names: list(LAST_NAMES),
        adjectives: list(ADJECTIVES),
        nouns: list(NOUNS),
        plurals: list(PLURALS),
        gerunds: list(GERUNDS),
        verbs: list(VERBS),
        participles: list(PARTICIPLES),
    })
}

const SMALL_WORDS: &[&str] = &[
    "a", "an", "the", "of", "for", "with", "via", "in", "on", "and", "or", "under", "over", "to",
    "from", "by", "at", "as", "vs.",
];

const EVENT_KINDS: &[&str] = &["Workshop", "Challenge", "Competition", "Symposium"];

// ---------------------------------------------------------------------------------------
// Text generation

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn title_case(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut starts_phrase = true;
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if !starts_phrase && SMALL_WORDS.contains(&word) {
            out.push_str(word);
        } else {
            for (k, part) in word.split('-').enumerate() {
                if k > 0 {
                    out.push('-');
                }
                if k > 0 && SMALL_WORDS.contains(&part) {
                    out.push_str(part);
                } else {
                    out.push_str(&capitalize(part));
                }
            }
        }
        starts_phrase = word.ends_with(':');
    }
    out
}

fn word_count(text: &str) -> usize {
    text.split(' ').count()
}

/// Title key for the distinctness check: lower-cased letters and digits only.
fn title_key(title: &str) -> String {
    title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn make_sys(rng: &mut Rng) -> String {
    if rng.chance(2, 3) {
        format!("{}{}", rng.pick(SYS_HEADS), rng.pick(SYS_TAILS))
    } else {
        let n = rng.range(2, 3);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(rng.pick(SYLLABLES));
        }
        capitalize(&s)
    }
}

/// Appends a noun phrase such as "sparse attention" or "robust cache eviction policy".
fn push_np(rng: &mut Rng, out: &mut String) {
    let v = vocab();
    push_noun_phrase(rng, &v.adjectives, &v.nouns, out);
}

/// Appends zero to two of `adjectives` then one or two of `nouns`, no word twice.
fn push_noun_phrase(
    rng: &mut Rng,
    adjectives: &[&'static str],
    nouns: &[&'static str],
    out: &mut String,
) {
    let (adjective_count, noun_count) = match rng.below(10) {
        0..=3 => (1, 1),
        4..=5 => (0, 2),
        6..=7 => (1, 2),
        8 => (0, 1),
        _ => (2, 1),
    };
    let mut words: Vec<&str> = Vec::with_capacity(3);
    for (list, count) in [(adjectives, adjective_count), (nouns, noun_count)] {
        let first = words.len();
        while words.len() < first + count {
            let word = rng.pick(list);
            if !words.contains(&word) {
                words.push(word);
            }
        }
    }
    out.push_str(&words.join(" "));
}

/// Appends `template` to `out` with its `{...}` placeholders filled in.
fn expand_into(rng: &mut Rng, template: &str, sys: &str, out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').expect("unclosed placeholder");
        match &rest[open + 1..close] {
            "a" => out.push_str(rng.pick(&vocab().adjectives)),
            "n" => out.push_str(rng.pick(&vocab().nouns)),
            "np" => push_np(rng, out),
            "cn" => out.push_str(rng.pick(&vocab().plurals)),
            "g" => out.push_str(rng.pick(&vocab().gerunds)),
            "v" => out.push_str(rng.pick(&vocab().verbs)),
            "pp" => out.push_str(rng.pick(&vocab().participles)),
            "sys" => out.push_str(sys),
            "int" => out.push_str(&rng.range(2, 64).to_string()),
            "pct" => {
                let whole = rng.range(1, 97);
                if rng.chance(1, 2) {
                    out.push_str(&whole.to_string());
                } else {
                    out.push_str(&format!("{whole}.{:02}", rng.below(100)));
                }
            }
            other => panic!("unknown placeholder {{{other}}}"),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
}

fn expand(rng: &mut Rng, template: &str, sys: &str) -> String {
    let mut out = String::new();
    expand_into(rng, template, sys, &mut out);
    fix_articles(&out)
}

/// Turns "a" into "an" before a vowel ("a adaptive model" -> "an adaptive model").
fn fix_articles(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if matches!(*word, "a" | "A") {
            let next = words.get(i + 1).copied().unwrap_or("");
            let vowel = next
                .chars()
                .next()
                .is_some_and(|c| "aeiouAEIOU".contains(c));
            if vowel && !next.to_lowercase().starts_with("uni") {
                out.push('n');
            }
        }
    }
    out
}

/// A title of 6 to `max_words` words (`max_words >= 8`).
fn make_title(rng: &mut Rng, sys: &str, max_words: usize) -> String {
    loop {
        let target = rng.range(6, max_words);
        let template = rng.pick(TITLE_TEMPLATES);
        let mut text = expand(rng, template, sys);
        // A question is complete as it stands.
        while word_count(&text) < target && !text.ends_with('?') {
            let tail = rng.pick(TITLE_TAILS);
            if !(tail.contains('{') || text.contains(tail)) {
                text.push_str(tail);
            } else if tail.contains('{') {
                expand_into(rng, tail, sys, &mut text);
            }
        }
        if (6..=max_words).contains(&word_count(&text)) {
            return title_case(&fix_articles(&text));
        }
    }
}

struct AbstractSpec {
    tex: bool,
    special: bool,
    url: bool,
    /// Ends in "... Workshop 2019" with no full stop.
    year_end: Option<u16>,
}

fn make_abstract(rng: &mut Rng, sys: &str, spec: &AbstractSpec) -> String {
    let target = rng.range(1000, 1400);
    let mut extra: Vec<String> = Vec::new();
    if spec.tex {
        extra.push(rng.pick(TEX_SENTENCES).to_owned());
    }
    if spec.special {
        extra.push(rng.pick(SPECIAL_SENTENCES).to_owned());
    }
    let mut tail: Vec<String> = Vec::new();
    if spec.url {
        let word = rng.pick(&vocab().nouns).to_lowercase();
        let url = if rng.chance(1, 2) {
            format!("Code is available at https://github.com/{word}-lab/{sys}.")
        } else {
            format!("Data and code: https://example.org/{word}/{sys}?release=2&format=csv")
        };
        tail.push(url);
    }
    if let Some(year) = spec.year_end {
        let kind = rng.pick(EVENT_KINDS);
        tail.push(format!(
            "An earlier version was presented at the {} {kind} {year}",
            capitalize(rng.pick(&vocab().nouns))
        ));
    }
    let fixed: usize = extra.iter().chain(&tail).map(|s| s.len() + 1).sum();

    let opener = rng.pick(OPENERS);
    let mut body: Vec<String> = vec![capitalize(&expand(rng, opener, sys))];
    let mut len = body[0].len() + fixed;
    while len < target {
        let template = rng.pick(SENTENCES);
        let s = capitalize(&expand(rng, template, sys));
        len += s.len() + 1;
        body.push(s);
    }
    if len > 1400 && body.len() > 2 && len - body[body.len() - 1].len() > 1000 {
        body.pop();
    }
    for (k, s) in extra.into_iter().enumerate() {
        let at = (body.len() / 2 + k).min(body.len());
        body.insert(at, s);
    }
    body.extend(tail);
    body.join(" ")
}

/// A name from `items`; about half the time an ASCII-only one, so that plain names stay
/// common next to accented ones.
fn pick_name_part(rng: &mut Rng, items: &[&'static str]) -> &'static str {
    let ascii = rng.chance(1, 2);
    loop {
        let part = rng.pick(items);
        if !ascii || part.is_ascii() {
            return part;
        }
    }
}

fn make_name(rng: &mut Rng) -> String {
    let first = pick_name_part(rng, &vocab().first_names);
    let last = pick_name_part(rng, &vocab().last_names);
    match rng.below(100) {
        0..=2 => format!("{}{}", rng.pick(CJK_FAMILY), rng.pick(CJK_GIVEN)),
        3 => format!("{}{}", rng.pick(HANGUL_FAMILY), rng.pick(HANGUL_GIVEN)),
        4 => format!("{} {}", rng.pick(CYRILLIC_FIRST), rng.pick(CYRILLIC_LAST)),
        5 => format!("{} {}", rng.pick(GREEK_FIRST), rng.pick(GREEK_LAST)),
        6..=13 => format!(
            "{first} {last}-{}",
            pick_name_part(rng, &vocab().last_names)
        ),
        14..=19 => format!("{first} {}. {last}", char::from(b'A' + rng.below(26) as u8)),
        _ => format!("{first} {last}"),
    }
}

fn make_names(seed: u64, count: usize) -> Vec<String> {
    let mut rng = Rng::new(seed, STREAM_NAMES);
    let mut seen: HashSet<String> = HashSet::with_capacity(count);
    let mut names = Vec::with_capacity(count);
    for i in 0..count {
        let mut name = match FIXED_NAMES.get(i) {
            Some(fixed) => (*fixed).to_owned(),
            None => make_name(&mut rng),
        };
        let mut attempt = 0usize;
        while seen.contains(&name) {
            attempt += 1;
            name = make_name(&mut rng);
            if attempt > 40 {
                name = format!("{name} {}", roman(attempt - 39));
            }
        }
        seen.insert(name.clone());
        names.push(name);
    }
    names
}

fn roman(mut n: usize) -> String {
    const TABLE: &[(usize, &str)] = &[
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for &(value, digits) in TABLE {
        while n >= value {
            out.push_str(digits);
            n -= value;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Authorship

/// How many papers each author lists; the sum lies in `papers..=8 * papers`.
fn make_targets(seed: u64, papers: usize, authors: usize) -> Vec<usize> {
    let mut rng = Rng::new(seed, STREAM_TARGETS);
    let prolific = PROLIFIC.min(authors.saturating_sub(1));
    let mut targets: Vec<usize> = (0..authors)
        .map(|i| {
            let t = if i < prolific {
                rng.range(papers / 10, papers * 3 / 20)
            } else if rng.chance(1, 25) {
                rng.range(1, 4)
            } else {
                // About log-uniform on 5..=40.
                ((5.0 * 8.2f64.powf(rng.unit())) as usize).min(40)
            };
            t.clamp(1, papers)
        })
        .collect();
    // The last author lists exactly one paper, unless there are too few authors.
    let single = authors > prolific + 1;
    if single {
        targets[authors - 1] = 1;
    }
    let mut total: usize = targets.iter().sum();
    // Too few listings to cover every paper: top up round-robin (prolific ones last).
    let mut i = prolific;
    while total < papers {
        if targets[i] < papers && !(single && i == authors - 1) {
            targets[i] += 1;
            total += 1;
        }
        i = (i + 1) % authors;
    }
    // Too many listings for 8 authors per paper: trim round-robin, prolific ones first.
    let mut i = 0;
    while total > papers * MAX_AUTHORS_PER_PAPER {
        if targets[i] > 1 {
            targets[i] -= 1;
            total -= 1;
        }
        i = (i + 1) % authors;
    }
    targets
}

/// How many authors list each paper (1..=8), summing to `total`.
fn make_sizes(seed: u64, papers: usize, total: usize) -> Vec<usize> {
    let mut rng = Rng::new(seed, STREAM_SIZES);
    let mut sizes = vec![1usize; papers];
    for _ in papers..total {
        loop {
            let j = rng.below(papers);
            if sizes[j] < MAX_AUTHORS_PER_PAPER {
                sizes[j] += 1;
                break;
            }
        }
    }
    sizes
}

/// Realizes the two degree sequences as a bipartite graph (Ryser's greedy construction:
/// each author takes distinct papers of largest remaining capacity, ties broken at random).
fn realize(seed: u64, targets: &[usize], sizes: &[usize]) -> Result<Vec<Vec<u32>>, String> {
    let mut rng = Rng::new(seed, STREAM_AUTHORSHIP);
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); MAX_AUTHORS_PER_PAPER + 1];
    for (p, &size) in sizes.iter().enumerate() {
        buckets[size].push(p as u32);
    }
    let mut order: Vec<usize> = (0..targets.len()).collect();
    rng.shuffle(&mut order);
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); targets.len()];
    let mut taken: Vec<(u32, usize)> = Vec::new();
    for a in order {
        taken.clear();
        for _ in 0..targets[a] {
            let cap = (1..=MAX_AUTHORS_PER_PAPER)
                .rev()
                .find(|&c| !buckets[c].is_empty())
                .ok_or("cannot distribute authorship for these parameters")?;
            let j = rng.below(buckets[cap].len());
            taken.push((buckets[cap].swap_remove(j), cap));
        }
        for &(p, cap) in &taken {
            buckets[cap - 1].push(p);
        }
        lists[a] = taken.iter().map(|&(p, _)| p).collect();
    }
    if buckets[1..].iter().any(|b| !b.is_empty()) {
        return Err("internal error: some paper slots left unfilled".to_owned());
    }
    Ok(lists)
}

// ---------------------------------------------------------------------------------------
// Papers

struct Paper {
    source: &'static str,
    year: u16,
    title: String,
    abstract_text: String,
    subject: &'static str,
}

fn make_papers(seed: u64, count: usize) -> Vec<Paper> {
    let mut rng = Rng::new(seed, STREAM_PAPERS);
    let mut seen: HashSet<String> = HashSet::with_capacity(count);
    let mut papers = Vec::with_capacity(count);
    for i in 0..count {
        let u = rng.unit();
        let year = MAX_YEAR - (u * u * f64::from(MAX_YEAR - MIN_YEAR + 1)) as u16;
        let (source, subject) = if rng.chance(1, 40) {
            ("bioRxiv", rng.pick(BIO_SUBJECTS))
        } else {
            ("arXiv", rng.weighted(SUBJECTS))
        };
        let sys = make_sys(&mut rng);
        let special_title = i % 200 == 42;
        let year_title = i % 200 == 123;
        let mut attempt = 0;
        let title = loop {
            attempt += 1;
            let mut title = if special_title {
                let sys2 = make_sys(&mut rng);
                let t = rng.pick(SPECIAL_TITLES).replacen("{sys}", &sys2, 1);
                title_case(&expand(&mut rng, &t, &sys))
            } else if year_title {
                let base = make_title(&mut rng, &sys, 9);
                let y = rng.range(usize::from(MIN_YEAR), usize::from(year));
                format!("{base}: Proceedings of the {} {y}", rng.pick(EVENT_KINDS))
            } else {
                make_title(&mut rng, &sys, 14)
            };
            if attempt > 6 {
                title = format!("{title}, Part {}", roman(attempt - 5));
            }
            if seen.insert(title_key(&title)) {
                break title;
            }
        };
        let spec = AbstractSpec {
            tex: i % 50 == 17,
            special: i % 200 == 142,
            url: i % 37 == 5,
            year_end: (i % 200 == 77)
                .then(|| rng.range(usize::from(MIN_YEAR), usize::from(year)) as u16),
        };
        let abstract_text = make_abstract(&mut rng, &sys, &spec);
        papers.push(Paper {
            source,
            year,
            title,
            abstract_text,
            subject,
        });
    }
    papers
}

/// A year next to `year`, still in range.
fn other_year(year: u16) -> u16 {
    let earlier = year.saturating_sub(1);
    earlier.max(MIN_YEAR) + u16::from(earlier < MIN_YEAR)
}

/// Same title in different case and punctuation.
fn title_variant(title: &str) -> String {
    let lower = capitalize(&title.to_lowercase());
    if lower.contains(": ") {
        lower.replacen(": ", " - ", 1)
    } else {
        format!("{lower}.")
    }
}

fn split_paragraphs(text: &str) -> String {
    let middle = text.len() / 2;
    let best = text
        .match_indices(". ")
        .map(|(i, _)| i)
        .min_by_key(|&i| i.abs_diff(middle));
    match best {
        Some(i) => format!("{}.\n\n{}", &text[..i], &text[i + 2..]),
        None => text.to_owned(),
    }
}

/// Per-file deviations from the paper data.
#[derive(Default)]
struct Tweaks {
    /// (author, paper) -> title as that author's file gives it.
    titles: HashMap<(usize, u32), String>,
    /// author -> declared record count.
    counts: HashMap<usize, usize>,
}

fn apply_specials(
    papers: &mut [Paper],
    lists: &[Vec<u32>],
    messy: bool,
    prolific: usize,
) -> Tweaks {
    let n = papers.len();
    let mut paper_authors: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (a, list) in lists.iter().enumerate() {
        for &p in list {
            paper_authors[p as usize].push(a as u32);
        }
    }
    let mut reserved: HashSet<usize> = HashSet::new();
    let mut tweaks = Tweaks::default();

    // One author lists two different papers with identical titles.
    let mut normal_first = (prolific..lists.len()).chain(0..prolific);
    if let Some(a) = normal_first.find(|&a| lists[a].len() >= 2) {
        let (p, q) = (lists[a][0] as usize, lists[a][1] as usize);
        papers[q].title = papers[p].title.clone();
        if papers[q].year == papers[p].year {
            papers[q].year = other_year(papers[p].year);
        }
        reserved.extend([p, q]);
    }

    // Two papers with no author in common share a title.
    'outer: for x in 0..n {
        if reserved.contains(&x) {
            continue;
        }
        for y in x + 1..n.min(x + 500) {
            let disjoint = !paper_authors[y]
                .iter()
                .any(|a| paper_authors[x].contains(a));
            if !reserved.contains(&y) && disjoint {
                papers[y].title = papers[x].title.clone();
                if papers[y].year == papers[x].year {
                    papers[y].year = other_year(papers[x].year);
                }
                reserved.extend([x, y]);
                break 'outer;
            }
        }
    }

    if !messy {
        return tweaks;
    }
    let find = |reserved: &HashSet<usize>, start: usize, ok: &dyn Fn(usize) -> bool| {
        (start..n)
            .chain(0..start)
            .find(|&p| !reserved.contains(&p) && ok(p))
            .or_else(|| (0..n).find(|p| !reserved.contains(p)))
    };

    if let Some(p) = find(&reserved, n / 3, &|_| true) {
        papers[p].title = "<script>alert(1)</script> Attack".to_owned();
        reserved.insert(p);
    }
    if let Some(p) = find(&reserved, n / 2, &|p| paper_authors[p].len() == 1) {
        papers[p].abstract_text.clear();
        reserved.insert(p);
    }
    if let Some(p) = find(&reserved, n / 4, &|p| paper_authors[p].len() >= 2) {
        papers[p].abstract_text = split_paragraphs(&papers[p].abstract_text);
        reserved.insert(p);
    }
    if let Some(p) = (2 * n / 3..n)
        .chain(0..2 * n / 3)
        .find(|&p| !reserved.contains(&p) && paper_authors[p].len() >= 2)
    {
        let a = paper_authors[p][1] as usize;
        tweaks
            .titles
            .insert((a, p as u32), title_variant(&papers[p].title));
        reserved.insert(p);
    }
    let start = lists.len() / 2;
    if let Some(a) = (start..lists.len())
        .chain(0..start)
        .find(|&a| a >= prolific && lists[a].len() >= 2)
    {
        tweaks.counts.insert(a, lists[a].len() + 2);
    }
    tweaks
}

// ---------------------------------------------------------------------------------------
// Rendering

/// Joins blocks with blank lines; a ragged writer adds trailing spaces and blank-line runs.
struct Writer {
    out: String,
    first: bool,
    ragged: bool,
    rng: Rng,
}

impl Writer {
    fn block(&mut self, text: &str) {
        if !self.first {
            self.separator();
        }
        self.first = false;
        if !self.ragged {
            self.out.push_str(text);
            return;
        }
        for (k, line) in text.split('\n').enumerate() {
            if k > 0 {
                self.out.push('\n');
            }
            self.out.push_str(line);
            if self.rng.chance(1, 3) {
                let pad = if self.rng.chance(1, 4) { " \t " } else { "  " };
                self.out.push_str(pad);
            }
        }
    }

    fn separator(&mut self) {
        self.out.push('\n');
        let blanks = if self.ragged && self.rng.chance(1, 4) {
            self.rng.range(2, 4)
        } else {
            1
        };
        for _ in 0..blanks {
            if self.ragged && self.rng.chance(1, 6) {
                self.out.push_str("   ");
            }
            self.out.push('\n');
        }
    }
}

struct Style {
    crlf: bool,
    bom: bool,
    ragged: bool,
}

fn style_for(author: usize, messy: bool) -> Style {
    Style {
        crlf: messy && author % 13 == 3,
        bom: messy && author % 19 == 7,
        ragged: messy && author % 11 == 5,
    }
}

fn render(
    author: usize,
    name: &str,
    list: &[u32],
    papers: &[Paper],
    tweaks: &Tweaks,
    style: &Style,
    seed: u64,
) -> String {
    let declared = tweaks.counts.get(&author).copied().unwrap_or(list.len());
    let mut w = Writer {
        out: String::with_capacity(list.len() * 1400 + 200),
        first: true,
        ragged: style.ragged,
        rng: Rng::new(seed, STREAM_STYLE + author as u64),
    };
    w.block("arXiv subjects");
    w.block(name);
    w.block(&format!(
        "Publications and source records attributed to {name}."
    ));
    w.block(&if declared == 1 {
        "1 recordLinked to original sources".to_owned()
    } else {
        format!("{declared} recordsLinked to original sources")
    });
    for &p in list {
        let paper = &papers[p as usize];
        w.block(&format!("{}{}", paper.source, paper.year));
        let title = tweaks
            .titles
            .get(&(author, p))
            .unwrap_or(&paper.title)
            .as_str();
        w.block(title);
        if !paper.abstract_text.is_empty() {
            w.block(&paper.abstract_text);
        }
        w.block(&format!("{}\u{2197}", paper.subject));
    }
    // Some ragged files end with a newline, or with a run of blank lines.
    if w.ragged && w.rng.chance(1, 3) {
        w.out.push('\n');
        if w.rng.chance(1, 2) {
            w.out.push_str("\n\n");
        }
    }
    let mut out = w.out;
    if style.crlf {
        out = out.replace('\n', "\r\n");
    }
    if style.bom {
        out.insert(0, '\u{FEFF}');
    }
    out
}

// ---------------------------------------------------------------------------------------

fn run(config: &Config) -> Result<(), String> {
    let summary = match config.shape {
        Shape::Default => run_default(config)?,
        Shape::Arxiv => arxiv::run(config, config.authors)?,
    };
    eprint!("{summary}");
    if !summary.ends_with('\n') {
        eprintln!();
    }
    Ok(())
}

fn run_default(config: &Config) -> Result<String, String> {
    let Config {
        papers: n_papers,
        authors: n_authors,
        seed,
        messy,
        ..
    } = *config;
    let names = make_names(seed, n_authors);
    let targets = make_targets(seed, n_papers, n_authors);
    let total: usize = targets.iter().sum();
    let sizes = make_sizes(seed, n_papers, total);
    let mut lists = realize(seed, &targets, &sizes)?;
    let mut papers = make_papers(seed, n_papers);
    let prolific = PROLIFIC.min(n_authors.saturating_sub(1));
    let tweaks = apply_specials(&mut papers, &lists, messy, prolific);
    for list in &mut lists {
        list.sort_unstable_by_key(|&p| (std::cmp::Reverse(papers[p as usize].year), p));
    }

    fs::create_dir_all(&config.out)
        .map_err(|e| format!("cannot create {}: {e}", config.out.display()))?;
    let width = (n_authors - 1).to_string().len().max(5);
    let mut bytes = 0usize;
    let mut records = 0usize;
    for (a, list) in lists.iter().enumerate() {
        let text = render(
            a,
            &names[a],
            list,
            &papers,
            &tweaks,
            &style_for(a, messy),
            seed,
        );
        let path = config.out.join(format!("a{a:0width$}.txt"));
        fs::write(&path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        bytes += text.len();
        records += list.len();
    }
    let mut summary = format!(
        "gen_corpus: {n_authors} files, {records} records, {n_papers} papers, {bytes} bytes in {}",
        config.out.display()
    );
    if config.stats {
        let facts: Vec<stats::PaperFacts> = papers
            .iter()
            .map(|p| stats::PaperFacts {
                year: p.year,
                subject: p.subject,
                title_chars: p.title.chars().count() as u32,
                abstract_chars: p.abstract_text.chars().count() as u32,
                title_math: p.title.contains('$'),
                abstract_math: p.abstract_text.contains('$'),
            })
            .collect();
        let papers_of = stats::Csr::from_lists(&lists);
        let authors_of = papers_of.transpose(n_papers);
        summary.push('\n');
        summary.push_str(&stats::report(&papers_of, &authors_of, &names, &facts));
    }
    Ok(summary)
}

fn main() -> ExitCode {
    match parse_args(std::env::args_os().skip(1)) {
        Ok(Parsed::Help) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Parsed::Run(config)) => match run(&config) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("gen_corpus: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("gen_corpus: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
