//! The `arxiv` shape: a corpus shaped like a real arXiv author-file corpus.
//!
//! Per 100,000 papers it has about 43,500 files (the default `--authors` is 0.435 times
//! `--papers`), 2.4 files per paper on average (median 2; 34% of the papers in one file,
//! one paper in 20,000 in 200 to 500 files), records per file with median 3, 90th
//! percentile 11, 99th percentile 37 and a largest file of about 740 records, the 172
//! subject codes of arXiv records (the 157 of the public taxonomy and 15 archive codes of
//! the 1990s such as `alg-geom` and `chao-dyn`) in arXiv's proportions, years 1995-2026
//! growing like arXiv's yearly submissions, a quarter of the abstracts with `$...$` math,
//! titles and abstracts as long as real ones (abstracts about 1,000 characters on average)
//! and 2.5% of the names with letters outside ASCII.
//!
//! Co-authors cluster as in real corpora: files are cut into pieces that form teams, a
//! team writes several papers together, and teams sit in order around a ring whose place
//! decides a paper's field, so that a file's papers are mostly in neighbouring subjects and
//! share a vocabulary (see [`make_graph`]). Text is never held for the whole corpus:
//! titles are kept, each abstract is made again from its own random stream whenever a file
//! lists it, and files are written in parallel.

use std::cmp::Reverse;
use std::collections::HashSet;
use std::fs;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::stats::{self, Csr, PaperFacts};
use super::{
    capitalize, fix_articles, list, make_sys, push_noun_phrase, roman, style_for, title_case,
    title_key, vocab, Config, Rng, Writer, CJK_FAMILY, CJK_GIVEN, CYRILLIC_FIRST, CYRILLIC_LAST,
    GREEK_FIRST, GREEK_LAST, HANGUL_FAMILY, HANGUL_GIVEN, MAX_YEAR, MIN_YEAR,
};

/// Author files per paper.
pub const AUTHORS_PER_PAPER: f64 = 0.435;

const STREAM_META: u64 = 11;
const STREAM_TITLES: u64 = 12;
const STREAM_SIZES: u64 = 13;
const STREAM_TARGETS: u64 = 14;
const STREAM_GRAPH: u64 = 15;
const STREAM_NAMES: u64 = 16;
/// Per-paper streams: `base + paper`.
const STREAM_SYS: u64 = 1 << 40;
const STREAM_ABSTRACT: u64 = 2 << 40;

// ---------------------------------------------------------------------------------------
// Subjects and years

/// Current arXiv codes with their share of papers in units of 0.01%, roughly arXiv's
/// (primary categories over its history). Ordered by field: neighbours on the ring of
/// papers share a field.
const SUBJECTS: &[(&str, u32)] = &[
    ("cs.LG", 550),
    ("stat.ML", 120),
    ("cs.AI", 150),
    ("cs.NE", 40),
    ("cs.CV", 450),
    ("eess.IV", 50),
    ("cs.MM", 10),
    ("cs.GR", 15),
    ("cs.CL", 300),
    ("cs.IR", 60),
    ("cs.DL", 10),
    ("cs.SD", 30),
    ("eess.AS", 30),
    ("eess.SP", 80),
    ("cs.IT", 110),
    ("math.IT", 12),
    ("cs.NI", 60),
    ("cs.SY", 12),
    ("eess.SY", 70),
    ("cs.RO", 120),
    ("cs.MA", 20),
    ("cs.HC", 60),
    ("cs.CY", 50),
    ("cs.SI", 50),
    ("cs.CR", 100),
    ("cs.DC", 70),
    ("cs.AR", 15),
    ("cs.PF", 8),
    ("cs.OS", 5),
    ("cs.SE", 60),
    ("cs.PL", 35),
    ("cs.LO", 50),
    ("cs.FL", 15),
    ("cs.DB", 35),
    ("cs.DS", 70),
    ("cs.CC", 30),
    ("cs.DM", 25),
    ("cs.CG", 20),
    ("cs.GT", 35),
    ("cs.ET", 10),
    ("cs.CE", 15),
    ("cs.MS", 8),
    ("cs.NA", 12),
    ("cs.SC", 6),
    ("cs.OH", 5),
    ("cs.GL", 1),
    ("stat.ME", 80),
    ("stat.AP", 40),
    ("stat.CO", 15),
    ("stat.OT", 3),
    ("stat.TH", 10),
    ("econ.EM", 15),
    ("econ.GN", 15),
    ("econ.TH", 10),
    ("q-fin.GN", 7),
    ("q-fin.EC", 3),
    ("q-fin.ST", 10),
    ("q-fin.MF", 10),
    ("q-fin.PR", 7),
    ("q-fin.RM", 6),
    ("q-fin.CP", 6),
    ("q-fin.PM", 6),
    ("q-fin.TR", 6),
    ("q-bio.PE", 30),
    ("q-bio.QM", 25),
    ("q-bio.NC", 30),
    ("q-bio.BM", 20),
    ("q-bio.MN", 10),
    ("q-bio.GN", 10),
    ("q-bio.CB", 8),
    ("q-bio.TO", 6),
    ("q-bio.SC", 4),
    ("q-bio.OT", 3),
    ("physics.bio-ph", 40),
    ("physics.med-ph", 25),
    ("physics.soc-ph", 50),
    ("physics.data-an", 25),
    ("physics.comp-ph", 40),
    ("physics.ed-ph", 10),
    ("physics.hist-ph", 10),
    ("physics.pop-ph", 5),
    ("physics.gen-ph", 30),
    ("physics.class-ph", 20),
    ("physics.flu-dyn", 90),
    ("nlin.CD", 30),
    ("nlin.PS", 15),
    ("nlin.SI", 20),
    ("nlin.AO", 10),
    ("nlin.CG", 3),
    ("physics.ao-ph", 25),
    ("physics.geo-ph", 15),
    ("physics.space-ph", 20),
    ("physics.plasm-ph", 50),
    ("physics.acc-ph", 25),
    ("physics.ins-det", 50),
    ("physics.optics", 120),
    ("physics.atom-ph", 50),
    ("physics.atm-clus", 5),
    ("physics.chem-ph", 50),
    ("physics.app-ph", 50),
    ("cond-mat.mtrl-sci", 250),
    ("cond-mat.mes-hall", 250),
    ("cond-mat.str-el", 180),
    ("cond-mat.supr-con", 80),
    ("cond-mat.quant-gas", 60),
    ("cond-mat.stat-mech", 160),
    ("cond-mat.soft", 120),
    ("cond-mat.dis-nn", 50),
    ("cond-mat.other", 40),
    ("quant-ph", 400),
    ("hep-th", 350),
    ("hep-ph", 400),
    ("hep-lat", 60),
    ("hep-ex", 100),
    ("nucl-th", 100),
    ("nucl-ex", 40),
    ("gr-qc", 220),
    ("astro-ph.CO", 200),
    ("astro-ph.GA", 220),
    ("astro-ph.HE", 180),
    ("astro-ph.SR", 200),
    ("astro-ph.EP", 80),
    ("astro-ph.IM", 80),
    ("math-ph", 80),
    ("math.MP", 20),
    ("math.AP", 160),
    ("math.DS", 80),
    ("math.CA", 50),
    ("math.FA", 80),
    ("math.OA", 30),
    ("math.SP", 12),
    ("math.CV", 30),
    ("math.DG", 100),
    ("math.SG", 15),
    ("math.GT", 50),
    ("math.AT", 30),
    ("math.KT", 8),
    ("math.CT", 12),
    ("math.AG", 130),
    ("math.AC", 25),
    ("math.RA", 30),
    ("math.QA", 30),
    ("math.RT", 50),
    ("math.GR", 50),
    ("math.NT", 110),
    ("math.CO", 160),
    ("math.LO", 30),
    ("math.GN", 6),
    ("math.MG", 20),
    ("math.GM", 6),
    ("math.HO", 8),
    ("math.PR", 140),
    ("math.ST", 70),
    ("math.OC", 130),
    ("math.NA", 100),
];

/// Archive codes of the 1990s, used only by papers of 1995-1999.
const OLD_SUBJECTS: &[(&str, u32)] = &[
    ("alg-geom", 25),
    ("q-alg", 20),
    ("dg-ga", 12),
    ("funct-an", 12),
    ("chao-dyn", 30),
    ("solv-int", 20),
    ("patt-sol", 8),
    ("adap-org", 8),
    ("comp-gas", 5),
    ("cmp-lg", 15),
    ("mtrl-th", 10),
    ("acc-phys", 6),
    ("ao-sci", 4),
    ("atom-ph", 8),
    ("chem-ph", 10),
];

/// Papers per year, roughly arXiv's yearly submissions in thousands (2026: its start).
const YEAR_WEIGHTS: &[u32] = &[
    20, 24, 28, 32, 35, 38, 41, 44, 48, 52, 56, 60, 65, 69, 73, 78, 83, 91, 98, 104, 108, 117, 125,
    139, 154, 178, 181, 186, 208, 240, 280, 45,
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Computing,
    Math,
    Physics,
    Astro,
    /// Statistics, biology, finance, economics.
    Quantitative,
}

fn field_of(code: &str) -> Field {
    let archive = code.split('.').next().unwrap_or(code);
    match archive {
        "cs" | "eess" | "cmp-lg" => Field::Computing,
        "stat" if code == "stat.ML" => Field::Computing,
        "stat" | "econ" | "q-fin" | "q-bio" | "adap-org" => Field::Quantitative,
        "math" | "alg-geom" | "q-alg" | "dg-ga" | "funct-an" => Field::Math,
        "math-ph" => Field::Math,
        "astro-ph" => Field::Astro,
        _ => Field::Physics,
    }
}

fn total_weight(items: &[(&str, u32)]) -> u32 {
    items.iter().map(|&(_, w)| w).sum()
}

/// The subject whose share of the ring contains `position` (in `[0, 1)`).
fn subject_at(position: f64) -> &'static str {
    let total = f64::from(total_weight(SUBJECTS));
    let mut acc = 0.0;
    for &(code, w) in SUBJECTS {
        acc += f64::from(w) / total;
        if position < acc {
            return code;
        }
    }
    SUBJECTS[SUBJECTS.len() - 1].0
}

fn pick_subject(rng: &mut Rng, position: f64, year: u16) -> &'static str {
    if year < 2000 && rng.chance(1, 4) {
        return rng.weighted(OLD_SUBJECTS);
    }
    // Most papers are in the field of their place on the ring; some are anywhere.
    let code = if rng.chance(17, 20) {
        subject_at(position)
    } else {
        rng.weighted(SUBJECTS)
    };
    // Archives that were split later: older records keep the archive code alone.
    if code.starts_with("astro-ph.") && year < 2009 && rng.chance(3, 5) {
        "astro-ph"
    } else if code.starts_with("cond-mat.") && year < 2001 && rng.chance(1, 4) {
        "cond-mat"
    } else {
        code
    }
}

fn pick_year(rng: &mut Rng) -> u16 {
    let total: u32 = YEAR_WEIGHTS.iter().sum();
    let mut r = rng.below(total as usize) as u32;
    for (i, &w) in YEAR_WEIGHTS.iter().enumerate() {
        if r < w {
            return MIN_YEAR + i as u16;
        }
        r -= w;
    }
    MAX_YEAR
}

// ---------------------------------------------------------------------------------------
// Vocabulary of the fields (computing uses the default shape's)

struct Lexicon {
    adjectives: &'static [&'static str],
    nouns: &'static [&'static str],
    plurals: &'static [&'static str],
    gerunds: &'static [&'static str],
}

const MATH_ADJECTIVES: &str = "\
    compact, smooth, projective, algebraic, holomorphic, symplectic, Riemannian, Kähler, \
    hyperbolic, elliptic, parabolic, nilpotent, solvable, semisimple, reductive, \
    finite-dimensional, infinite-dimensional, abelian, non-abelian, commutative, \
    noncommutative, modular, arithmetic, combinatorial, asymptotic, bounded, self-adjoint, \
    ergodic, random, discrete, minimal, maximal, generalized, twisted, equivariant, \
    stable, singular, irreducible, homogeneous, quasi-periodic, nonlinear, linear, convex, \
    sharp, uniform, global, local, weak, graded, derived, tropical, p-adic, toric, \
    rational, integral";
const MATH_NOUNS: &str = "\
    manifold, variety, scheme, sheaf, category, functor, module, algebra, group, ring, \
    operator, space, measure, metric, bundle, connection, curvature, cohomology, homology, \
    invariant, polynomial, lattice, graph, hypergraph, matroid, partition, permutation, \
    conjecture, inequality, estimate, bound, solution, equation, flow, morphism, \
    representation, character, eigenvalue, spectrum, semigroup, martingale, random walk, \
    domain, surface, knot, quiver, Lie algebra, Hopf algebra, moduli space, Hilbert space, \
    Banach space, Sobolev space, Laplacian, Schrödinger operator, Dirichlet problem, zeta \
    function, L-function, modular form, Galois group, Weyl group, Coxeter group, \
    Calabi-Yau threefold, Hecke algebra, Brownian motion, tableau";
const MATH_PLURALS: &str = "\
    manifolds, varieties, groups, algebras, operators, graphs, equations, surfaces, \
    lattices, polynomials, representations, categories, modules, sequences, knots, \
    matrices, curves, fibrations";
const MATH_GERUNDS: &str = "\
    computing, classifying, counting, bounding, constructing, characterizing, estimating, \
    deforming, quantizing, extending, approximating, decomposing";

const PHYSICS_ADJECTIVES: &str = "\
    topological, superconducting, ferromagnetic, antiferromagnetic, quantum, relativistic, \
    non-relativistic, chiral, supersymmetric, gauge-invariant, holographic, thermal, \
    nonequilibrium, many-body, strongly correlated, disordered, frustrated, \
    two-dimensional, three-dimensional, one-dimensional, effective, semiclassical, \
    perturbative, nonperturbative, cold-atom, optical, ultrafast, nonlinear, magnetic, \
    electronic, anisotropic, spin-orbit, entangled, dissipative, critical, gravitational, \
    scalar, fermionic, bosonic, massive, massless, heavy-ion, turbulent, granular, van der \
    Waals";
const PHYSICS_NOUNS: &str = "\
    Hamiltonian, spin chain, phase transition, order parameter, superconductor, insulator, \
    semimetal, magnon, phonon, exciton, polariton, soliton, vortex, black hole, horizon, \
    gauge theory, field theory, string, brane, neutrino, quark, gluon, meson, baryon, \
    Higgs boson, dark matter, axion, cross section, decay, scattering amplitude, coupling, \
    entanglement, qubit, decoherence, quantum channel, Bose-Einstein condensate, Fermi \
    surface, band structure, density of states, correlation function, partition function, \
    path integral, renormalization group, anomaly, symmetry, instability, turbulence, \
    plasma, waveguide, cavity, laser, resonator, metamaterial, thin film, heterostructure, \
    nanowire, graphene, monolayer, detector, collider, beam, spin liquid, Kondo effect, \
    Hall conductance, wave packet";
const PHYSICS_PLURALS: &str = "\
    qubits, spins, electrons, photons, nuclei, fermions, bosons, magnons, vortices, black \
    holes, solitons, thin films, detectors, events, collisions, measurements, droplets, \
    jets";
const PHYSICS_GERUNDS: &str = "\
    probing, measuring, simulating, controlling, engineering, tuning, imaging, detecting, \
    cooling, trapping, modeling, revisiting";

const ASTRO_ADJECTIVES: &str = "\
    stellar, galactic, extragalactic, interstellar, circumstellar, cosmological, \
    relativistic, magnetized, high-redshift, low-mass, massive, metal-poor, dusty, \
    star-forming, active, compact, binary, variable, transient, photometric, \
    spectroscopic, radio, X-ray, infrared, optical, ultraviolet, gamma-ray, planetary, \
    protoplanetary, young, evolved";
const ASTRO_NOUNS: &str = "\
    galaxy, star, cluster, nebula, quasar, pulsar, magnetar, neutron star, white dwarf, \
    supernova, gamma-ray burst, accretion disk, jet, outflow, halo, filament, dark energy, \
    cosmic microwave background, redshift survey, luminosity function, mass function, \
    light curve, spectrum, exoplanet, debris disk, binary system, black hole, merger, \
    gravitational wave, telescope, survey, catalog, emission line, dust, molecular cloud, \
    star formation, initial mass function, Hubble constant, dwarf galaxy, globular cluster";
const ASTRO_PLURALS: &str = "\
    galaxies, stars, clusters, quasars, pulsars, exoplanets, supernovae, binaries, halos, \
    mergers, observations, spectra, light curves, sources";
const ASTRO_GERUNDS: &str = "\
    observing, mapping, modeling, constraining, detecting, characterizing, measuring, \
    simulating, tracing, resolving";

const QUANT_ADJECTIVES: &str = "\
    Bayesian, hierarchical, longitudinal, spatial, temporal, causal, nonparametric, \
    semiparametric, high-dimensional, robust, sparse, clinical, genomic, evolutionary, \
    epidemiological, ecological, cellular, molecular, neural, stochastic, financial, \
    macroeconomic, heterogeneous, optimal, empirical, dynamic, structural, regional, \
    mixed-effects, functional";
const QUANT_NOUNS: &str = "\
    estimator, regression, model, prior, posterior, likelihood, test, confidence interval, \
    survival analysis, treatment effect, instrumental variable, panel data, time series, \
    volatility, portfolio, option price, market, auction, equilibrium, policy, household, \
    labor market, inflation, gene expression, protein, sequence, population, epidemic, \
    network, neuron, cell, tissue, phylogeny, mutation, species, ecosystem, pathway, \
    biomarker, cohort, trial, bootstrap, false discovery rate";
const QUANT_PLURALS: &str = "\
    genes, proteins, cells, neurons, species, populations, patients, firms, households, \
    markets, assets, prices, samples, covariates";
const QUANT_GERUNDS: &str = "\
    estimating, testing, predicting, modeling, inferring, forecasting, identifying, \
    pricing, hedging, sequencing";

/// The comma-separated word lists of this module, split.
struct Words {
    math_adjectives: Vec<&'static str>,
    math_nouns: Vec<&'static str>,
    math_plurals: Vec<&'static str>,
    math_gerunds: Vec<&'static str>,
    physics_adjectives: Vec<&'static str>,
    physics_nouns: Vec<&'static str>,
    physics_plurals: Vec<&'static str>,
    physics_gerunds: Vec<&'static str>,
    astro_adjectives: Vec<&'static str>,
    astro_nouns: Vec<&'static str>,
    astro_plurals: Vec<&'static str>,
    astro_gerunds: Vec<&'static str>,
    quant_adjectives: Vec<&'static str>,
    quant_nouns: Vec<&'static str>,
    quant_plurals: Vec<&'static str>,
    quant_gerunds: Vec<&'static str>,
    word_roots: Vec<&'static str>,
    first: Vec<&'static str>,
    pinyin: Vec<&'static str>,
    chinese_last: Vec<&'static str>,
    last: Vec<&'static str>,
    last_heads: Vec<&'static str>,
    last_tails: Vec<&'static str>,
}

fn words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| Words {
        math_adjectives: list(MATH_ADJECTIVES),
        math_nouns: list(MATH_NOUNS),
        math_plurals: list(MATH_PLURALS),
        math_gerunds: list(MATH_GERUNDS),
        physics_adjectives: list(PHYSICS_ADJECTIVES),
        physics_nouns: list(PHYSICS_NOUNS),
        physics_plurals: list(PHYSICS_PLURALS),
        physics_gerunds: list(PHYSICS_GERUNDS),
        astro_adjectives: list(ASTRO_ADJECTIVES),
        astro_nouns: list(ASTRO_NOUNS),
        astro_plurals: list(ASTRO_PLURALS),
        astro_gerunds: list(ASTRO_GERUNDS),
        quant_adjectives: list(QUANT_ADJECTIVES),
        quant_nouns: list(QUANT_NOUNS),
        quant_plurals: list(QUANT_PLURALS),
        quant_gerunds: list(QUANT_GERUNDS),
        word_roots: list(WORD_ROOTS),
        first: list(FIRST),
        pinyin: list(PINYIN),
        chinese_last: list(CHINESE_LAST),
        last: list(LAST),
        last_heads: list(LAST_HEADS),
        last_tails: list(LAST_TAILS),
    })
}

fn lexicon(field: Field) -> Lexicon {
    match field {
        Field::Computing => {
            let v = vocab();
            Lexicon {
                adjectives: &v.adjectives,
                nouns: &v.nouns,
                plurals: &v.plurals,
                gerunds: &v.gerunds,
            }
        }
        Field::Math => Lexicon {
            adjectives: &words().math_adjectives,
            nouns: &words().math_nouns,
            plurals: &words().math_plurals,
            gerunds: &words().math_gerunds,
        },
        Field::Physics => Lexicon {
            adjectives: &words().physics_adjectives,
            nouns: &words().physics_nouns,
            plurals: &words().physics_plurals,
            gerunds: &words().physics_gerunds,
        },
        Field::Astro => Lexicon {
            adjectives: &words().astro_adjectives,
            nouns: &words().astro_nouns,
            plurals: &words().astro_plurals,
            gerunds: &words().astro_gerunds,
        },
        Field::Quantitative => Lexicon {
            adjectives: &words().quant_adjectives,
            nouns: &words().quant_nouns,
            plurals: &words().quant_plurals,
            gerunds: &words().quant_gerunds,
        },
    }
}

/// Technical words beyond the lists above, drawn with Zipf's law from about a million
/// (so that the number of distinct words grows with the corpus as in real text):
/// `[prefix] root [o root] suffix`, e.g. "spectral", "magnetophonic", "quasitorsional".
const WORD_PREFIXES: &[&str] = &[
    "", "quasi", "pseudo", "hyper", "super", "sub", "anti", "multi", "poly", "iso", "para", "meta",
    "non", "bi", "semi", "ultra",
];
const WORD_ROOTS: &str = "\
    magnet, spectr, chrom, phon, therm, electr, morph, graph, cycl, tens, vari, hom, top, \
    metr, cryst, flux, lumin, plasm, quant, sol, tors, vort, fract, harmon, ferm, bos, \
    chir, hel, dynam, kinet, stat, trop, phot, grad, curv, modul, fibr, orb, axi, lept, \
    hadr, neur, gen, cell, enzym, lip, hydr, carb, sil, oxid, nitr, ion, polar, dipol, \
    scal, tenz, vector, matr, operat, algebr, geodes, simplic, cohomolog, lagrang";
const WORD_SUFFIXES: &[&str] = &[
    "ic", "al", "ism", "ity", "on", "ics", "ation", "ator", "ite", "ide", "oid", "ology", "ometry",
    "ene", "ant", "ous",
];
const LEXICON_SIZE: usize = 1 << 20;

fn push_technical_word(rng: &mut Rng, out: &mut String) {
    let roots = &words().word_roots;
    // Zipf's law with exponent 1: P(rank r) is about 1 / (r + 1).
    let rank =
        ((rng.unit() * ((LEXICON_SIZE + 1) as f64).ln()).exp() as usize - 1).min(LEXICON_SIZE - 1);
    let mut r = rank;
    let suffix = WORD_SUFFIXES[r % WORD_SUFFIXES.len()];
    r /= WORD_SUFFIXES.len();
    let root = roots[r % roots.len()];
    r /= roots.len();
    let second = r % (roots.len() + 1);
    r /= roots.len() + 1;
    out.push_str(WORD_PREFIXES[r % WORD_PREFIXES.len()]);
    out.push_str(root);
    if second > 0 {
        out.push('o');
        out.push_str(roots[second - 1]);
    }
    out.push_str(suffix);
}

// ---------------------------------------------------------------------------------------
// Math

/// Inline math as real abstracts have it.
const MATH: &[&str] = &[
    r"$\alpha$",
    r"$\beta$",
    r"$\gamma$",
    r"$\lambda$",
    r"$\sigma$",
    r"$\tau$",
    r"$\mu$",
    r"$\theta$",
    r"$\epsilon$",
    r"$\varepsilon > 0$",
    r"$\delta > 0$",
    r"$k$",
    r"$n$",
    r"$d$",
    r"$N$",
    r"$x^2$",
    r"$O(n\log n)$",
    r"$\mathcal{O}(1)$",
    r"$O(\sqrt{T})$",
    r"$\tilde{O}(d/\epsilon^2)$",
    r"$\Omega(n^2)$",
    r"$1/\sqrt{n}$",
    r"$n \to \infty$",
    r"$\mathbb{R}^n$",
    r"$\mathbb{R}^d$",
    r"$\mathbb{Z}_2$",
    r"$\mathbb{C}$",
    r"$\mathbb{F}_q$",
    r"$\ell_1$",
    r"$\ell_2$",
    r"$\ell_\infty$",
    r"$L^2$",
    r"$L^p$",
    r"$p > 2$",
    r"$0 < \alpha < 1$",
    r"$d \geq 3$",
    r"$\mathcal{N}=4$",
    r"$SU(N)$",
    r"$SU(2)\times U(1)$",
    r"$SL(2,\mathbb{Z})$",
    r"$GL_n$",
    r"$\mathfrak{g}$",
    r"$\mathfrak{sl}_2$",
    r"$U_q(\mathfrak{g})$",
    r"$C^*$",
    r"$K_0$",
    r"$H^1(X,\mathcal{O}_X)$",
    r"$\pi_1(M)$",
    r"$S^3$",
    r"$T^*M$",
    r"$\zeta(s)$",
    r"$L(s,\chi)$",
    r"$\Gamma$",
    r"$\Delta u = f$",
    r"$\partial_t u + u\cdot\nabla u = 0$",
    r"$-\Delta u + V u = \lambda u$",
    r"$\|x\|_2$",
    r"$\langle x, y\rangle$",
    r"$e^{-t}$",
    r"$\log n$",
    r"$\sqrt{s} = 13$ TeV",
    r"$\sqrt{s_{NN}} = 5.02$ TeV",
    r"$pp$",
    r"$p_T$",
    r"$B \to K^* \mu^+ \mu^-$",
    r"$\Lambda$",
    r"$H_0$",
    r"$z \sim 2$",
    r"$z > 6$",
    r"$M_\odot$",
    r"$10^{12} M_\odot$",
    r"$T_c$",
    r"$\mathrm{MgB}_2$",
    r"$\mathrm{SrTiO}_3$",
    r"$J/\psi$",
    r"$\nu_\mu$",
    r"$\theta_{13}$",
    r"$\chi^2$",
    r"$R^2$",
    r"$p < 0.05$",
    r"$\hbar\omega$",
    r"$5\sigma$",
    r"$2\pi$",
    r"$\pi/2$",
    r"$\mathbb{P}(X > t)$",
    r"$\mathbb{E}[X]$",
    r"$\mathcal{N}(0,1)$",
    r"$\mathbb{Z}[x]$",
    r"$n \times n$",
    r"$\{0,1\}^n$",
    r"$2^{O(k)}$",
    r"$t \in [0,T]$",
    r"$x \in \Omega$",
    r"$u_t = \Delta u$",
    r"$\mathcal{L}$",
    r"$\mathcal{H}$",
    r"$\mathcal{C}$",
    r"$A^{-1}$",
    r"$A^\top A$",
    r"$\det(A)$",
    r"$f(x) = x^3$",
    r"$\sum_{i=1}^n x_i$",
    r"$\int_0^1 f(t)\,dt$",
    r"$\frac{1}{2}$",
    r"$\lim_{n\to\infty} a_n$",
    r"$\Sigma^{-1}$",
    r"$\hat{\theta}$",
];

/// Math with author macros, as about 2% of real fragments have. profilegen knows those
/// with one obvious meaning (`\R`, `\eps`, `\cA`, `\Tr`) and the braket package's
/// `\ket` (which KaTeX knows too); `\Hilb` stands for the rest, which only the paper's
/// own source defines, so a build warns of it.
const AUTHOR_MACROS: &[&str] = &[
    r"$\R^n$",
    r"$\Z_p$",
    r"$\C^*$",
    r"$\eps$",
    r"$\Hilb$",
    r"$\cA$",
    r"$\ket{\psi}$",
    r"$\Tr(\rho)$",
];

fn push_math(rng: &mut Rng, out: &mut String) {
    match rng.below(40) {
        0 => out.push_str(rng.pick(AUTHOR_MACROS)),
        1..=4 => {
            let var = rng.pick(&["n", "k", "d", "N", "p", "m", "q"]);
            out.push_str(&format!("${var} = {}$", rng.range(2, 64)));
        }
        5..=8 => out.push_str(&format!("$O(n^{{{}}})$", rng.range(2, 5))),
        _ => out.push_str(rng.pick(MATH)),
    }
}

// ---------------------------------------------------------------------------------------
// Text

struct Ctx<'a> {
    lex: &'a Lexicon,
    sys: &'a str,
}

/// Appends a noun phrase; now and then with a technical word in front.
fn push_np(rng: &mut Rng, ctx: &Ctx, out: &mut String) {
    if rng.chance(1, 9) {
        push_technical_word(rng, out);
        out.push(' ');
    }
    push_noun_phrase(rng, ctx.lex.adjectives, ctx.lex.nouns, out);
}

fn expand_into(rng: &mut Rng, template: &str, ctx: &Ctx, out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').expect("unclosed placeholder");
        match &rest[open + 1..close] {
            "a" => out.push_str(rng.pick(ctx.lex.adjectives)),
            "n" => out.push_str(rng.pick(ctx.lex.nouns)),
            "np" => push_np(rng, ctx, out),
            "cn" => out.push_str(rng.pick(ctx.lex.plurals)),
            "g" => out.push_str(rng.pick(ctx.lex.gerunds)),
            "v" => out.push_str(rng.pick(&vocab().verbs)),
            "pp" => out.push_str(rng.pick(&vocab().participles)),
            "w" => push_technical_word(rng, out),
            "m" => push_math(rng, out),
            "sys" => out.push_str(ctx.sys),
            "int" => out.push_str(&rng.range(2, 64).to_string()),
            "pct" => out.push_str(&rng.range(1, 97).to_string()),
            other => panic!("unknown placeholder {{{other}}}"),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
}

fn expand(rng: &mut Rng, template: &str, ctx: &Ctx) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    expand_into(rng, template, ctx, &mut out);
    fix_articles(&out)
}

const TITLE_TEMPLATES: &[&str] = &[
    "{np} of {np}",
    "On {np} of {cn}",
    "{a} {n} in {np}",
    "{np} and {np}",
    "A note on {np}",
    "{np} for {np}",
    "{np}: {a} {n} and {np}",
    "Towards {np} of {np}",
    "{g} {np} with {np}",
    "The {n} of {np}",
    "{np} in {a} {cn}",
    "{a} {cn} with {np}",
    "Existence and uniqueness of {np} for {np}",
    "Constraints on {np} from {np}",
    "Observation of {np} in {np}",
    "{w} {np} and {np}",
];
const SYS_TITLE_TEMPLATES: &[&str] = &[
    "{sys}: {g} {np} for {np}",
    "{sys}: {a} {np} via {np}",
    "{sys}: {g} {a} {cn} at Scale",
];
const MATH_TITLE_TEMPLATES: &[&str] = &[
    "{m} {cn} for {np}",
    "{np} on {m}",
    "{np} with {m}",
    "On the {n} of {m}",
];
const TITLE_TAILS: &[&str] = &[
    " in {np}",
    " for {np}",
    " with {np}",
    " and {np}",
    " via {np}",
    " on {a} {cn}",
    " beyond {np}",
    " from {np}",
    " at {a} {n}",
];
/// Titles that different papers share.
const GENERIC_TITLES: &[&str] = &[
    "Erratum",
    "Comment",
    "Reply to Comment",
    "Editorial",
    "Preface",
    "Corrigendum",
    "Introduction",
    "Lecture Notes",
    "Addendum",
];

fn word_count(text: &str) -> usize {
    text.split(' ').count()
}

fn make_title(rng: &mut Rng, ctx: &Ctx, field: Field) -> String {
    // About log-normal: median 7 words, 80% between 4 and 12.
    let target = ((7.0 * (0.4 * normal(rng)).exp()).round() as usize).clamp(2, 30);
    let template = if rng.chance(1, 20) {
        rng.pick(MATH_TITLE_TEMPLATES)
    } else if field == Field::Computing && rng.chance(1, 5) {
        rng.pick(SYS_TITLE_TEMPLATES)
    } else {
        rng.pick(TITLE_TEMPLATES)
    };
    let mut text = String::new();
    expand_into(rng, template, ctx, &mut text);
    while word_count(&text) < target {
        let tail = rng.pick(TITLE_TAILS);
        expand_into(rng, tail, ctx, &mut text);
    }
    let text = fix_articles(&text);
    if rng.chance(1, 2) {
        title_case(&text)
    } else {
        capitalize(&text)
    }
}

const OPENERS: &[&str] = &[
    "We study {np} in {np}.",
    "We consider {np} for {np}.",
    "In this paper we investigate {np} and its relation to {np}.",
    "{np} plays a central role in {np}.",
    "The {n} of {np} is a long-standing problem in the study of {cn}.",
    "Recent observations of {np} have renewed interest in {np}.",
    "We present {np} of {np}.",
    "Motivated by {np}, we introduce {np}.",
    "Understanding {np} remains a major challenge for {np}.",
    "This work is concerned with {np} associated with {np}.",
];
const SENTENCES: &[&str] = &[
    "We show that {np} is {a} if and only if the {n} is {a}.",
    "Our main result establishes {a} bounds on the {n} of {np}.",
    "As an application, we obtain {np} for {np}.",
    "In particular, we prove that every {a} {n} admits {a} {n}.",
    "Using {np}, we derive {np} that {v} {np}.",
    "The {n} is determined by {np} and {np}.",
    "We find that {np} {v} {np} in the {a} regime.",
    "Numerical simulations confirm that {np} {v} {np}.",
    "We also discuss {np} and {a} {n}.",
    "These results extend earlier work on {np} to {a} {cn}.",
    "The proof relies on {np} together with {a} {n}.",
    "Our analysis reveals {a} {n} between {np} and {np}.",
    "We compare our predictions with {np} and find good agreement.",
    "Finally, we comment on {a} implications for {np}.",
    "This provides {a} framework for {np} and {np}.",
    "Moreover, the {n} can be computed explicitly in terms of {np}.",
    "The resulting {n} is {a}, {a} and {a}.",
    "A key ingredient is {np}, which {v} {np}.",
    "Applications to {cn} and {cn} are also given.",
    "We identify {a} {w} {n} that controls {np}.",
    "This {n} is {pp} from {np} with {a} {n}.",
    "Data from {int} {cn} show {a} {n} of {np}.",
];
const SYS_SENTENCES: &[&str] = &[
    "We propose {sys}, a {a} {n} that {v} {np} through {a} {n}.",
    "Experiments on {int} benchmark datasets show that {sys} {v} {a} baselines by up to {pct}%.",
    "We validate {sys} on {int} real-world {cn}, where it consistently {v} {np}.",
];
const MATH_SENTENCES: &[&str] = &[
    "We show that for every {m} the {n} satisfies {m}.",
    "In particular, when {m} we recover {np}.",
    "The {n} is bounded by {m}, which is optimal up to {a} factors.",
    "Our algorithm runs in {m} time and uses {m} space.",
    "We prove that the {n} of {np} is {m}.",
    "Here {m} denotes the {n} of {np}.",
    "For {m}, we construct {np} with {m}.",
    "This yields {a} {n} on {m}.",
    "As a consequence, the {n} is {a} for all {m}.",
    "The case {m} is treated separately.",
    "We obtain {np} of order {m}.",
];

/// Standard normal (Box-Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u = rng.unit().max(1e-12);
    let v = rng.unit();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Share of abstracts with math, per field, in parts per thousand (a quarter overall).
fn math_share(field: Field) -> usize {
    match field {
        Field::Math => 520,
        Field::Physics => 270,
        Field::Astro => 220,
        Field::Quantitative => 130,
        Field::Computing => 110,
    }
}

/// The abstract of one paper, from that paper's own stream: the same every time.
fn make_abstract(seed: u64, paper: usize, field: Field, sys: &str) -> String {
    let mut rng = Rng::new(seed, STREAM_ABSTRACT + paper as u64);
    let lex = lexicon(field);
    let ctx = Ctx { lex: &lex, sys };
    // About log-normal: median 850 characters, 80% between 480 and 1,500.
    let target = ((850.0 * (0.45 * normal(&mut rng)).exp()) as usize).clamp(60, 2300);
    let mut math = if rng.chance(math_share(field), 1000) {
        // 1 to 8 fragments, median 3.
        1 + ((-rng.unit().max(1e-12).ln() * 2.6) as usize).min(7)
    } else {
        0
    };
    let mut out = String::with_capacity(target + 200);
    let opener = rng.pick(OPENERS);
    out.push_str(&capitalize(&expand(&mut rng, opener, &ctx)));
    let url = field == Field::Computing && rng.chance(1, 12);
    while out.len() < target || (math > 0 && out.len() < 2300) {
        let template = if math > 0 && rng.chance(1, 2) {
            let t = rng.pick(MATH_SENTENCES);
            math = math.saturating_sub(t.matches("{m}").count());
            t
        } else if field == Field::Computing && rng.chance(1, 6) {
            rng.pick(SYS_SENTENCES)
        } else {
            rng.pick(SENTENCES)
        };
        out.push(' ');
        out.push_str(&capitalize(&expand(&mut rng, template, &ctx)));
    }
    if url {
        let word = rng.pick(&vocab().nouns).to_lowercase();
        out.push_str(&format!(
            " Code is available at https://github.com/{word}-lab/{}.",
            sys.to_lowercase()
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------
// Names: mostly ASCII (arXiv's own spelling), 2.5% with other letters.

const FIRST: &str = "\
    James, John, Robert, Michael, William, David, Richard, Joseph, Thomas, Charles, \
    Christopher, Daniel, Matthew, Anthony, Mark, Paul, Steven, Andrew, Kevin, Brian, \
    George, Timothy, Jason, Edward, Ryan, Jacob, Nicholas, Eric, Jonathan, Stephen, \
    Justin, Scott, Benjamin, Samuel, Gregory, Alexander, Patrick, Frank, Raymond, Jack, \
    Henry, Adam, Peter, Nathan, Kyle, Walter, Carl, Arthur, Roger, Keith, Sean, Christian, \
    Jesse, Jordan, Bruce, Albert, Gabriel, Alan, Juan, Philip, Louis, Vincent, Russell, \
    Mary, Patricia, Jennifer, Linda, Elizabeth, Barbara, Susan, Jessica, Sarah, Karen, \
    Nancy, Lisa, Margaret, Sandra, Ashley, Emily, Michelle, Amanda, Melissa, Stephanie, \
    Rebecca, Laura, Amy, Helen, Anna, Nicole, Emma, Samantha, Katherine, Christine, \
    Rachel, Catherine, Maria, Julie, Victoria, Olivia, Kelly, Lauren, Megan, Andrea, \
    Hannah, Alice, Julia, Grace, Sophia, Natalie, Charlotte, Claire, Hans, Klaus, Stefan, \
    Matthias, Andreas, Markus, Wolfgang, Giovanni, Marco, Luca, Francesco, Alessandro, \
    Paolo, Stefano, Roberto, Pierre, Jean, Nicolas, Philippe, Laurent, Olivier, Alain, \
    Sergei, Dmitry, Alexey, Andrei, Vladimir, Nikolai, Igor, Pavel, Mikhail, Ivan, Carlos, \
    Javier, Miguel, Pablo, Antonio, Manuel, Jorge, Luis, Pedro, Diego, Lars, Erik, Anders, \
    Jan, Piotr, Tomasz, Marek, Pieter, Willem, Ahmed, Mohamed, Ali, Omar, Hassan, Hossein, \
    Reza, Mehdi, Amir, Yusuf, Kwame, Chinedu, Tunde, Amit, Anil, Arjun, Deepak, Rahul, \
    Rajesh, Ravi, Sanjay, Sunil, Vijay, Priya, Anjali, Kavita, Neha, Pooja, Aditya, Rohit, \
    Vikram, Suresh, Manish, Nikhil, Abhishek, Ankit, Siddharth, Shreya, Ananya, Hiroshi, \
    Takashi, Kenji, Yuki, Satoshi, Akira, Kazuki, Naoki, Yusuke, Kenta, Keiko, Ryo, \
    Daisuke, Takumi, Seung, Hyun, Jae, Sung, Dong, Young, Jin, Soo, Minh, Duc, Anh";
/// Syllables of Chinese given names in pinyin ("Zhongbo", "Xiaoming").
const PINYIN: &str = "\
    wei, jing, li, yang, hao, xin, yu, jun, lei, ming, hui, yan, ying, qiang, tao, bo, \
    chao, feng, gang, hong, jian, jie, kai, lin, peng, rui, shan, tian, xiao, yi, yun, \
    zhen, zhi, zhong, xiang, yuan, liang, ning, qing, song, hua, fei, long, dong, chen";
const CHINESE_LAST: &str = "\
    Wang, Li, Zhang, Liu, Chen, Yang, Huang, Zhao, Wu, Zhou, Xu, Sun, Ma, Zhu, Hu, Guo, \
    He, Lin, Gao, Luo, Zheng, Liang, Xie, Tang, Song, Han, Feng, Deng, Cao, Peng, Zeng, \
    Xiao, Tian, Dong, Pan, Yuan, Cai, Jiang, Yu, Du, Ye, Cheng, Wei, Su, Lu, Ding, Ren, \
    Shen, Yao";
const LAST: &str = "\
    Kim, Lee, Park, Choi, Jung, Kang, Cho, Yoon, Jang, Lim, Sato, Suzuki, Takahashi, \
    Tanaka, Watanabe, Ito, Yamamoto, Nakamura, Kobayashi, Kato, Yoshida, Yamada, Sasaki, \
    Matsumoto, Inoue, Kimura, Hayashi, Shimizu, Mori, Sharma, Singh, Kumar, Gupta, Patel, \
    Shah, Reddy, Rao, Iyer, Nair, Mehta, Joshi, Agarwal, Banerjee, Chatterjee, Mukherjee, \
    Das, Bose, Sen, Ghosh, Chakraborty, Verma, Mishra, Pandey, Srivastava, Jain, Kulkarni, \
    Desai, Menon, Pillai, Smith, Johnson, Williams, Brown, Jones, Miller, Davis, Wilson, \
    Anderson, Taylor, Thomas, Moore, Martin, Jackson, Thompson, White, Harris, Clark, \
    Lewis, Robinson, Walker, Young, Allen, King, Wright, Scott, Hill, Green, Adams, Baker, \
    Nelson, Carter, Mitchell, Roberts, Turner, Phillips, Campbell, Parker, Evans, Edwards, \
    Collins, Stewart, Morris, Murphy, Cook, Rogers, Morgan, Cooper, Reed, Bailey, Bell, \
    Kelly, Howard, Ward, Cox, Richardson, Wood, Watson, Brooks, Bennett, Gray, Hughes, \
    Price, Myers, Ross, Foster, Powell, Russell, Sullivan, Fisher, Hamilton, Graham, \
    Wallace, Cole, West, Ellis, Marshall, Gibson, Hunt, Stone, Knight, Palmer, Black, \
    Grant, Hudson, Burke, Shaw, Mueller, Schmidt, Schneider, Fischer, Weber, Meyer, \
    Wagner, Becker, Schulz, Hoffmann, Koch, Richter, Klein, Wolf, Neumann, Braun, \
    Zimmermann, Hartmann, Krause, Lange, Werner, Lehmann, Keller, Vogel, Bernard, Dubois, \
    Robert, Richard, Petit, Durand, Leroy, Moreau, Simon, Laurent, Michel, Bertrand, Roux, \
    Vincent, Fournier, Girard, Mercier, Blanc, Rossi, Russo, Ferrari, Esposito, Bianchi, \
    Romano, Colombo, Ricci, Marino, Greco, Bruno, Gallo, Conti, De Luca, Mancini, Costa, \
    Giordano, Lombardi, Moretti, Garcia, Rodriguez, Martinez, Lopez, Gonzalez, Hernandez, \
    Perez, Sanchez, Ramirez, Torres, Flores, Rivera, Gomez, Diaz, Morales, Ortiz, Ruiz, \
    Alvarez, Castillo, Romero, Navarro, Vargas, Ramos, Molina, Ivanov, Smirnov, Kuznetsov, \
    Popov, Vasiliev, Petrov, Sokolov, Mikhailov, Novikov, Fedorov, Morozov, Volkov, \
    Lebedev, Semenov, Pavlov, Kozlov, Stepanov, Orlov, Andreev, Makarov, Zaitsev, Nowak, \
    Kowalski, Kaminski, Lewandowski, Zielinski, Novak, Svoboda, de Vries, van Dijk, \
    Bakker, Janssen, Visser, Hansen, Johansson, Andersson, Nilsson, Larsson, Olsen, \
    Jensen, Nielsen, Berg, Hassan, Ahmed, Khan, Hussain, Rahman, Karimi, Hosseini, \
    Mohammadi, Rezaei, Ahmadi, Demir, Kaya, Cohen, Levy, Friedman, Katz, Shapiro, Okafor, \
    Adeyemi, Mensah, Okonkwo, Nguyen, Tran, Le, Pham, Hoang, Vu, Silva, Santos, Oliveira, \
    Souza, Lima, Pereira, Carvalho, Almeida, Ferreira, Ribeiro";
/// Surnames put together from parts, so that names stay mostly distinct in large corpora.
const LAST_HEADS: &str = "\
    Var, Mel, Kor, Lind, Ost, Brand, Hal, Wester, Ash, Mor, Bel, Dar, Fen, Gol, Har, Kel, \
    Lor, Mar, Nor, Pal, Ros, Sal, Tor, Val, Wal, Zel, Brom, Cal, Dov, Esk, Fal, Gran, Hel, \
    Kast, Lev, Mal, Nik, Pet, Rad, Sten";
const LAST_MIDDLES: &[&str] = &["en", "ar", "o", "il", "an", "er", "is", "und"];
const LAST_TAILS: &str = "\
    ton, berg, ley, sen, ov, ini, ez, ard, man, field, ford, stein, ova, escu, idis, oglu, \
    wala, ski, ak, ic, er, ello, ani, uk, aki, dottir, mann, by, hurst, well";

fn push_last_name(rng: &mut Rng, out: &mut String) {
    if rng.chance(1, 3) {
        out.push_str(rng.pick(&words().last_heads));
        if rng.chance(1, 2) {
            out.push_str(rng.pick(LAST_MIDDLES));
        }
        out.push_str(rng.pick(&words().last_tails));
    } else {
        out.push_str(rng.pick(&words().last));
    }
}

fn ascii_name(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.chance(3, 20) {
        // A Chinese name in pinyin: "Xiaoming Wang".
        out.push_str(&capitalize(rng.pick(&words().pinyin)));
        if rng.chance(3, 4) {
            out.push_str(rng.pick(&words().pinyin));
        }
        out.push(' ');
        out.push_str(rng.pick(&words().chinese_last));
        return out;
    }
    let initial = |rng: &mut Rng| char::from(b'A' + rng.below(26) as u8);
    match rng.below(100) {
        0..=5 => out.push_str(&format!("{}. ", initial(rng))),
        6..=8 => out.push_str(&format!("{}. {}. ", initial(rng), initial(rng))),
        9..=28 => out.push_str(&format!("{} {}. ", rng.pick(&words().first), initial(rng))),
        _ => {
            out.push_str(rng.pick(&words().first));
            out.push(' ');
        }
    }
    push_last_name(rng, &mut out);
    match rng.below(100) {
        0..=2 => {
            out.push('-');
            push_last_name(rng, &mut out);
        }
        3..=4 => {
            out.push(' ');
            push_last_name(rng, &mut out);
        }
        _ => {}
    }
    out
}

fn other_name(rng: &mut Rng) -> String {
    let v = vocab();
    let non_ascii = |rng: &mut Rng, items: &[&'static str]| loop {
        let part = rng.pick(items);
        if !part.is_ascii() {
            return part;
        }
    };
    match rng.below(100) {
        0..=4 => format!("{}{}", rng.pick(CJK_FAMILY), rng.pick(CJK_GIVEN)),
        5..=6 => format!("{}{}", rng.pick(HANGUL_FAMILY), rng.pick(HANGUL_GIVEN)),
        7..=10 => format!("{} {}", rng.pick(CYRILLIC_FIRST), rng.pick(CYRILLIC_LAST)),
        11..=13 => format!("{} {}", rng.pick(GREEK_FIRST), rng.pick(GREEK_LAST)),
        14..=49 => format!(
            "{} {}",
            non_ascii(rng, &v.first_names),
            rng.pick(&v.last_names)
        ),
        _ => format!(
            "{} {}",
            rng.pick(&v.first_names),
            non_ascii(rng, &v.last_names)
        ),
    }
}

/// Names of the files; a name may repeat (as in real corpora), rarely.
fn make_names(seed: u64, count: usize) -> Vec<String> {
    let mut rng = Rng::new(seed, STREAM_NAMES);
    let mut seen: HashSet<u64> = HashSet::with_capacity(count);
    (0..count)
        .map(|_| {
            let mut name = String::new();
            let other = rng.chance(1, 40);
            for _ in 0..4 {
                name = if other {
                    other_name(&mut rng)
                } else {
                    ascii_name(&mut rng)
                };
                if seen.insert(xxh3_64(name.as_bytes())) {
                    break;
                }
            }
            name
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Authorship

/// Files per paper, as the quantile function of a discrete distribution: 34% in one
/// file, then each count 0.48 times as likely as the one before, up to 12; 0.4% in 13-30
/// files and 0.08% in 31-100.
fn size_at(u: f64) -> u32 {
    const SINGLE: f64 = 0.34;
    const TAIL_13: f64 = 0.004;
    const TAIL_31: f64 = 0.0008;
    const RATIO: f64 = 0.48;
    if u < SINGLE {
        return 1;
    }
    let body = 1.0 - SINGLE - TAIL_13 - TAIL_31;
    let norm: f64 = (0..11).map(|i| RATIO.powi(i)).sum();
    let mut acc = SINGLE;
    for k in 2..=12 {
        acc += body * RATIO.powi(k - 2) / norm;
        if u < acc {
            return k as u32;
        }
    }
    if u < acc + TAIL_13 {
        let t = (u - acc) / TAIL_13;
        return 13 + (t * 18.0) as u32;
    }
    let t = ((u - acc - TAIL_13) / TAIL_31).min(0.999_999);
    // Log-uniform on 31..=100.
    (31.0 * (100.0f64 / 31.0).powf(t)) as u32
}

/// Records per file, as a quantile function: log-linear between these points.
const RECORDS_QUANTILES: &[(f64, f64)] = &[
    (0.0, 1.0),
    (0.3, 1.99),
    (0.5, 3.45),
    (0.75, 5.9),
    (0.9, 11.4),
    (0.99, 37.5),
    (0.999, 75.0),
    (0.9999, 230.0),
    (0.99998, 720.0),
    (1.0, 760.0),
];

fn records_at(u: f64) -> u32 {
    for pair in RECORDS_QUANTILES.windows(2) {
        let ((u0, q0), (u1, q1)) = (pair[0], pair[1]);
        if u <= u1 {
            let t = (u - u0) / (u1 - u0);
            return (q0.ln() + t * (q1.ln() - q0.ln())).exp() as u32;
        }
    }
    RECORDS_QUANTILES[RECORDS_QUANTILES.len() - 1].1 as u32
}

/// Files per paper; `true` marks the large collaborations (200-500 files).
fn make_sizes(seed: u64, papers: usize, authors: usize) -> (Vec<u32>, Vec<bool>) {
    let mut rng = Rng::new(seed, STREAM_SIZES);
    let cap = authors as u32;
    // Stratified: the sorted sizes follow the distribution closely at any corpus size.
    let mut sizes: Vec<u32> = (0..papers)
        .map(|i| size_at((i as f64 + rng.unit()) / papers as f64).min(cap))
        .collect();
    rng.shuffle(&mut sizes);
    let mut large = vec![false; papers];
    let collaborations = (papers + 10_000) / 20_000;
    if authors >= 200 {
        let mut placed = 0;
        while placed < collaborations {
            let p = rng.below(papers);
            if !large[p] {
                large[p] = true;
                sizes[p] = rng.range(200, 500).min(authors) as u32;
                placed += 1;
            }
        }
    }
    // Every file needs a record.
    let mut total: usize = sizes.iter().map(|&k| k as usize).sum();
    while total < authors {
        let p = rng.below(papers);
        if sizes[p] < cap {
            sizes[p] += 1;
            total += 1;
        }
    }
    (sizes, large)
}

/// Records per file, summing to `total` (the records the papers need).
fn make_targets(seed: u64, authors: usize, papers: usize, total: usize) -> Vec<u32> {
    let mut rng = Rng::new(seed, STREAM_TARGETS);
    let cap = papers as u32;
    let mut targets: Vec<u32> = (0..authors)
        .map(|i| records_at((i as f64 + rng.unit()) / authors as f64).clamp(1, cap))
        .collect();
    rng.shuffle(&mut targets);
    // Match the papers' total: change files picked in proportion to their size, so that
    // the distribution keeps its shape.
    let mut sum: usize = targets.iter().map(|&t| t as usize).sum();
    let mut cumulative: Vec<usize> = targets
        .iter()
        .scan(0usize, |acc, &t| {
            *acc += t as usize;
            Some(*acc)
        })
        .collect();
    let mut misses = 0usize;
    while sum != total {
        if misses > 64 * authors {
            // Nearly every file is at its bound: take any that can move.
            cumulative = (1..=authors).collect();
            misses = 0;
        }
        let r = rng.below(*cumulative.last().unwrap_or(&1));
        let a = cumulative.partition_point(|&c| c <= r);
        if sum < total && targets[a] < cap {
            targets[a] += 1;
            sum += 1;
        } else if sum > total && targets[a] > 1 {
            targets[a] -= 1;
            sum -= 1;
        } else {
            misses += 1;
        }
    }
    targets
}

/// A file's records are split into pieces of at most this many, each in one team.
const PIECE: u32 = 6;
/// Pieces per team: 2 to this many.
const TEAM_MAX: usize = 7;
/// Papers on either side of a paper among which a repeated author is swapped first.
const REPAIR_WINDOW: usize = 8;

fn ring_key(position: f64) -> u64 {
    let frac = position - position.floor();
    (frac * 18_446_744_073_709_551_616.0) as u64
}

/// Paper -> authors, with co-authors in teams. Each file's records are cut into pieces
/// of at most [`PIECE`]; the pieces are put in order around a ring (a file's pieces near
/// its place, about two teams apart) and runs of 2 to [`TEAM_MAX`] consecutive pieces form
/// teams. Within a team each piece's records are spaced evenly, so that consecutive slots
/// are mostly different people. Papers follow the ring too (paper `p` at
/// `(p + 0.5) / papers`, the place that decides its subject) and take consecutive slots:
/// a paper's authors are mostly one team, a team writes several papers together, and a
/// file's teams are in neighbouring fields. A large collaboration takes its slots from
/// all over the ring. An author that lands twice on one paper is swapped with an author
/// of a paper nearby (or anywhere; failing that, the repeat is dropped).
fn make_graph(seed: u64, sizes: &[u32], large: &[bool], targets: &[u32]) -> Csr {
    let mut rng = Rng::new(seed, STREAM_GRAPH);
    let papers = sizes.len();
    let total: usize = sizes.iter().map(|&k| k as usize).sum();

    // Memberships: a file's records in pieces of at most `membership()`, placed evenly
    // around the file's place so that its pieces fall into different, nearby teams.
    let piece = PIECE;
    let mut pieces: Vec<(u64, u32, u32)> = Vec::new();
    let count: usize = targets.iter().map(|&t| t.div_ceil(piece) as usize).sum();
    // Consecutive pieces of a file lie about two teams apart.
    let span = (TEAM_MAX + 2) as f64 / count as f64;
    for (a, &t) in targets.iter().enumerate() {
        let place = rng.unit();
        let n = t.div_ceil(piece);
        let width = (f64::from(n) * span).min(1.0);
        for j in 0..n {
            let records = t / n + u32::from(j < t % n);
            let at = place + width * ((f64::from(j) + rng.unit()) / f64::from(n) - 0.5);
            pieces.push((ring_key(at), a as u32, records));
        }
    }
    pieces.sort_unstable();
    // Teams: runs of consecutive pieces; within a team each piece's records are spaced
    // evenly, so that consecutive slots (one paper's authors) are mostly different people.
    let mut author_slots: Vec<(u64, u32)> = Vec::with_capacity(total);
    let mut team_no = 0u64;
    let mut left = 0usize;
    for &(_, a, records) in &pieces {
        if left == 0 {
            team_no += 1;
            left = rng.range(2, TEAM_MAX);
        }
        left -= 1;
        let phase = rng.unit();
        for j in 0..records {
            let within = (f64::from(j) + phase) / f64::from(records);
            author_slots.push(((team_no << 32) | (within * 4_294_967_296.0) as u64, a));
        }
    }
    drop(pieces);
    author_slots.sort_unstable();
    let mut paper_slots: Vec<(u64, u32)> = Vec::with_capacity(total);
    for (p, &k) in sizes.iter().enumerate() {
        let place = ring_key((p as f64 + 0.5) / papers as f64);
        for _ in 0..k {
            // A large collaboration's authors come from all over the ring.
            let key = if large[p] {
                ring_key(rng.unit())
            } else {
                place
            };
            paper_slots.push((key, p as u32));
        }
    }
    paper_slots.sort_unstable();

    let mut graph = Csr::with_lengths(sizes.iter().map(|&k| k as usize));
    let mut next: Vec<usize> = (0..papers).map(|p| graph.row_range(p).start).collect();
    for (&(_, p), &(_, a)) in paper_slots.iter().zip(&author_slots) {
        graph.items_mut()[next[p as usize]] = a;
        next[p as usize] += 1;
    }
    drop((author_slots, paper_slots, next));

    let mut repeats: Vec<(usize, usize)> = Vec::new();
    let mut firsts: HashSet<u32> = HashSet::new();
    for p in 0..papers {
        let row = graph.row(p);
        if row.len() <= 24 {
            for i in 1..row.len() {
                if row[..i].contains(&row[i]) {
                    repeats.push((p, graph.row_range(p).start + i));
                }
            }
        } else {
            let start = graph.row_range(p).start;
            firsts.clear();
            for (i, &a) in row.iter().enumerate() {
                if !firsts.insert(a) {
                    repeats.push((p, start + i));
                }
            }
        }
    }
    for (p, slot) in repeats {
        let a = graph.items()[slot];
        let mut fixed = false;
        for attempt in 0..64 {
            let q = if attempt < 40 {
                let offset = rng.below(2 * REPAIR_WINDOW + 1) as isize - REPAIR_WINDOW as isize;
                (p as isize + offset).rem_euclid(papers as isize) as usize
            } else {
                rng.below(papers)
            };
            if q == p {
                continue;
            }
            let range = graph.row_range(q);
            let other = range.start + rng.below(range.len());
            let b = graph.items()[other];
            if b == u32::MAX || b == a || graph.row(p).contains(&b) || graph.row(q).contains(&a) {
                continue;
            }
            graph.items_mut().swap(slot, other);
            fixed = true;
            break;
        }
        if !fixed {
            graph.items_mut()[slot] = u32::MAX;
        }
    }
    graph.without_dropped()
}

// ---------------------------------------------------------------------------------------
// Papers

struct Papers {
    years: Vec<u16>,
    subjects: Vec<&'static str>,
    /// All titles, one after another; title `p` is `titles[ends[p - 1]..ends[p]]`.
    titles: String,
    ends: Vec<usize>,
}

impl Papers {
    fn title(&self, p: usize) -> &str {
        let start = if p == 0 { 0 } else { self.ends[p - 1] };
        &self.titles[start..self.ends[p]]
    }
}

fn sys_for(seed: u64, paper: usize) -> String {
    make_sys(&mut Rng::new(seed, STREAM_SYS + paper as u64))
}

fn make_papers(seed: u64, count: usize) -> Papers {
    let mut meta = Rng::new(seed, STREAM_META);
    let mut rng = Rng::new(seed, STREAM_TITLES);
    let mut seen: HashSet<u64> = HashSet::with_capacity(count);
    let mut papers = Papers {
        years: Vec::with_capacity(count),
        subjects: Vec::with_capacity(count),
        titles: String::with_capacity(count * 80),
        ends: Vec::with_capacity(count),
    };
    for p in 0..count {
        let year = pick_year(&mut meta);
        let subject = pick_subject(&mut meta, (p as f64 + 0.5) / count as f64, year);
        let field = field_of(subject);
        let lex = lexicon(field);
        let sys = sys_for(seed, p);
        let ctx = Ctx {
            lex: &lex,
            sys: &sys,
        };
        let title = if rng.chance(1, 2000) {
            rng.pick(GENERIC_TITLES).to_owned()
        } else {
            let mut attempt = 0;
            loop {
                attempt += 1;
                let mut title = make_title(&mut rng, &ctx, field);
                if attempt > 6 {
                    title = format!("{title}, Part {}", roman(attempt - 5));
                }
                if seen.insert(xxh3_64(title_key(&title).as_bytes())) {
                    break title;
                }
            }
        };
        papers.years.push(year);
        papers.subjects.push(subject);
        papers.titles.push_str(&title);
        papers.ends.push(papers.titles.len());
    }
    papers
}

// ---------------------------------------------------------------------------------------

/// Writes the corpus; returns the summary line and, if asked, the statistics.
pub(super) fn run(config: &Config, n_authors: usize) -> Result<String, String> {
    let Config {
        papers: n_papers,
        seed,
        messy,
        ..
    } = *config;
    let papers = make_papers(seed, n_papers);
    let (sizes, large) = make_sizes(seed, n_papers, n_authors);
    let total: usize = sizes.iter().map(|&k| k as usize).sum();
    let targets = make_targets(seed, n_authors, n_papers, total);
    let authors_of = make_graph(seed, &sizes, &large, &targets);
    drop((sizes, large, targets));
    let mut papers_of = authors_of.transpose(n_authors);
    for a in 0..n_authors {
        papers_of
            .row_mut(a)
            .sort_unstable_by_key(|&p| (Reverse(papers.years[p as usize]), p));
    }
    let names = make_names(seed, n_authors);

    fs::create_dir_all(&config.out)
        .map_err(|e| format!("cannot create {}: {e}", config.out.display()))?;
    let width = (n_authors - 1).to_string().len().max(5);
    // Per paper, measured where its first author's file is written: abstract length in
    // characters, and bit 32 set when it has math.
    let abstract_facts: Vec<AtomicU64> = (0..n_papers).map(|_| AtomicU64::new(0)).collect();
    let (bytes, records) = (0..n_authors)
        .into_par_iter()
        .with_min_len(16)
        .map(|a| {
            let list = papers_of.row(a);
            let name = &names[a];
            let style = style_for(a, messy);
            let mut w = Writer {
                out: String::with_capacity(list.len() * 1300 + 200),
                first: true,
                ragged: style.ragged,
                rng: Rng::new(seed, super::STREAM_STYLE + a as u64),
            };
            w.block("arXiv subjects");
            w.block(name);
            w.block(&format!(
                "Publications and source records attributed to {name}."
            ));
            w.block(&if list.len() == 1 {
                "1 recordLinked to original sources".to_owned()
            } else {
                format!("{} recordsLinked to original sources", list.len())
            });
            for &p in list {
                let p = p as usize;
                let subject = papers.subjects[p];
                let text = make_abstract(seed, p, field_of(subject), &sys_for(seed, p));
                if authors_of.row(p)[0] as usize == a {
                    let math = u64::from(text.contains('$')) << 32;
                    abstract_facts[p].store(text.chars().count() as u64 | math, Ordering::Relaxed);
                }
                w.block(&format!("arXiv{}", papers.years[p]));
                w.block(papers.title(p));
                w.block(&text);
                w.block(&format!("{subject}\u{2197}"));
            }
            if w.ragged && w.rng.chance(1, 3) {
                w.out.push('\n');
            }
            let mut out = w.out;
            if style.crlf {
                out = out.replace('\n', "\r\n");
            }
            if style.bom {
                out.insert(0, '\u{FEFF}');
            }
            let path = config.out.join(format!("a{a:0width$}.txt"));
            fs::write(&path, out.as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            Ok::<_, String>((out.len(), list.len()))
        })
        .try_reduce(|| (0, 0), |x, y| Ok((x.0 + y.0, x.1 + y.1)))?;

    let mut summary = format!(
        "gen_corpus: {n_authors} files, {records} records, {n_papers} papers, {bytes} bytes in {}",
        config.out.display()
    );
    if config.stats {
        let facts: Vec<PaperFacts> = (0..n_papers)
            .map(|p| {
                let f = abstract_facts[p].load(Ordering::Relaxed);
                let title = papers.title(p);
                PaperFacts {
                    year: papers.years[p],
                    subject: papers.subjects[p],
                    title_chars: title.chars().count() as u32,
                    abstract_chars: f as u32,
                    title_math: title.contains('$'),
                    abstract_math: f >> 32 != 0,
                }
            })
            .collect();
        summary.push('\n');
        summary.push_str(&stats::report(&papers_of, &authors_of, &names, &facts));
    }
    Ok(summary)
}
