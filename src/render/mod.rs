//! Rendering: planned pages -> HTML, with Tera, in parallel.
//!
//! The default theme lives in `templates/` and is embedded in the binary, so an
//! installed `profilegen` works on any folder; a site's own `templates/` overrides
//! it file by file. Autoescaping is on for every template: input text can only
//! reach a page escaped.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock, Weak};

use indicatif::{ParallelProgressIterator, ProgressBar};
use rayon::prelude::*;
use tera::{Context, Kwargs, State, Tera};

use crate::diagnostics::Diagnostic;
use crate::hash::content_hash;
use crate::plan::PlannedOutput;

pub(crate) mod bounded;
pub mod context;

use bounded::BoundedCache;

use context::{Output, OutputMaker, TemplateHashes};

/// A finished output file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    /// Output path relative to the output folder.
    pub path: String,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// The file of `planned`, which holds `bytes`: gzip-compressed when its path is that of
/// a precompressed file ([`crate::config::Precompress::file_path`]).
fn finished_file(maker: &OutputMaker, planned: &PlannedOutput, bytes: Vec<u8>) -> RenderedFile {
    let path = planned.path.clone();
    match maker.precompress().holds_compressed(&path) {
        true => RenderedFile {
            path,
            bytes: gzip(&bytes),
        },
        false => RenderedFile { path, bytes },
    }
}

/// `bytes` gzip-compressed, the same for the same bytes (the header holds no time and
/// no name).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let out = Vec::with_capacity(bytes.len() / 3 + 64);
    let mut encoder = flate2::write::GzEncoder::new(out, flate2::Compression::new(GZIP_LEVEL));
    // Writing to a `Vec` cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

/// The gzip level of precompressed files. On the pages of an arXiv-shaped site, level 6
/// made files 7% smaller than level 1 (a third of the bytes against 0.32) and took 1.7
/// times as long; levels above 6 gained nothing more.
const GZIP_LEVEL: u32 = 6;

/// The default theme's templates, embedded at compile time: `(file name, source)`.
pub const DEFAULT_TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    (
        "macros/paper_list.html",
        include_str!("../../templates/macros/paper_list.html"),
    ),
    (
        "macros/paper_item.html",
        include_str!("../../templates/macros/paper_item.html"),
    ),
    (
        "macros/feed_entry.xml",
        include_str!("../../templates/macros/feed_entry.xml"),
    ),
    (
        "macros/pagination.html",
        include_str!("../../templates/macros/pagination.html"),
    ),
    (
        "macros/letters.html",
        include_str!("../../templates/macros/letters.html"),
    ),
    ("index.html", include_str!("../../templates/index.html")),
    ("authors.html", include_str!("../../templates/authors.html")),
    (
        "authors_letter.html",
        include_str!("../../templates/authors_letter.html"),
    ),
    ("author.html", include_str!("../../templates/author.html")),
    ("paper.html", include_str!("../../templates/paper.html")),
    (
        "subjects.html",
        include_str!("../../templates/subjects.html"),
    ),
    ("subject.html", include_str!("../../templates/subject.html")),
    ("years.html", include_str!("../../templates/years.html")),
    ("year.html", include_str!("../../templates/year.html")),
    ("page.html", include_str!("../../templates/page.html")),
    ("404.html", include_str!("../../templates/404.html")),
    ("search.html", include_str!("../../templates/search.html")),
    ("atom.xml", include_str!("../../templates/atom.xml")),
    ("sitemap.xml", include_str!("../../templates/sitemap.xml")),
];

/// The default theme's static files, embedded: `(path under the output, contents)`.
pub const DEFAULT_STATIC: &[(&str, &[u8])] = &[
    ("style.css", include_bytes!("../../static/style.css")),
    ("favicon.svg", include_bytes!("../../static/favicon.svg")),
    ("site.js", include_bytes!("../../static/site.js")),
    ("search.js", include_bytes!("../../static/search.js")),
];

/// A hash of the built-in theme (templates and static files), so that a build cache
/// made by a binary with another theme is not taken as current.
pub fn default_theme_hash() -> u64 {
    let static_files = DEFAULT_STATIC.iter().map(|(name, data)| (*name, *data));
    files_hash(default_templates().chain(static_files))
}

/// A hash of the built-in theme's templates alone.
pub fn default_templates_hash() -> u64 {
    files_hash(default_templates())
}

/// The built-in templates as named bytes.
fn default_templates() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    DEFAULT_TEMPLATES
        .iter()
        .map(|(name, source)| (*name, source.as_bytes()))
}

/// One hash of named files: each name and the hash of its bytes, in order.
pub fn files_hash<'f>(files: impl IntoIterator<Item = (&'f str, &'f [u8])>) -> u64 {
    let mut bytes = Vec::new();
    for (name, data) in files {
        bytes.extend_from_slice(name.as_bytes());
        bytes.extend_from_slice(&content_hash(data).to_le_bytes());
    }
    content_hash(&bytes)
}

/// Template fragments rendered once per build and then reused: Tera's `render_cached`
/// function (like Hugo's `partialCached`).
///
/// `{{ render_cached(template="macros/paper_item.html", key=paper.href, paper=paper) }}`
/// renders `template` with every other argument as its context the first time a `key`
/// is asked for, and gives the same HTML (safe, not escaped again) for that key after.
/// A paper shown on thousands of pages is rendered once. The key must tell apart every
/// context the fragment can be rendered with: two calls with one key get one output.
/// The cache lives as long as its [`Renderer`], which is made for one build, and holds
/// at most about [`FragmentCache::MAX_BYTES`] of HTML: when full it starts again empty,
/// so memory stays bounded on any site (a fragment is the same whenever it is made).
struct FragmentCache {
    /// The Tera instance that holds this function (weak: it owns the function).
    tera: OnceLock<Weak<Tera>>,
    /// Rendered fragments by a hash of their template and key.
    rendered: BoundedCache<tera::Value>,
}

thread_local! {
    /// How many `render_cached` fragments this thread is rendering, one inside another.
    static FRAGMENT_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The error of a fragment that failed inside another, handed out to the enclosing
    /// fragments as it is: Tera would wrap it once per level.
    static FRAGMENT_ERROR: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

impl FragmentCache {
    const TEMPLATE: &'static str = "template";
    const KEY: &'static str = "key";
    /// Fragments may render fragments, this many deep: a fragment that renders itself
    /// is an error rather than a stack overflow.
    const MAX_DEPTH: usize = 16;
    /// The most HTML the cache holds before it starts again: the fragments of tens of
    /// thousands of papers, while a fragment shown on many pages is rarely made twice.
    const MAX_BYTES: usize = 32 << 20;

    fn render_cached(&self, kwargs: Kwargs) -> tera::TeraResult<tera::Value> {
        let template: &str = kwargs.must_get(Self::TEMPLATE)?;
        let key: &str = kwargs.must_get(Self::KEY)?;
        let cache_key = crate::hash::key("fragment", &(template, key));
        if let Some(value) = self.rendered.get(cache_key) {
            return Ok(value);
        }
        let tera = self
            .tera
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| tera::Error::message("render_cached: the templates are gone"))?;
        let mut context = Context::new();
        for (name, value) in kwargs.iter() {
            match name.as_str() {
                Some(Self::TEMPLATE | Self::KEY) | None => {}
                Some(name) => context.insert_value(name.to_owned(), value.clone()),
            }
        }
        let depth = FRAGMENT_DEPTH.get();
        // The innermost failing fragment's error, passed out through the enclosing ones.
        let fail = |message: String| {
            if depth > 0 {
                FRAGMENT_ERROR.set(Some(message.clone()));
            }
            Err(tera::Error::message(message))
        };
        if depth == 0 {
            FRAGMENT_ERROR.take();
        }
        if depth >= Self::MAX_DEPTH {
            return fail(format!(
                "render_cached of {template} for key {key:?}: fragments nested more than {} deep (does a fragment render itself?)",
                Self::MAX_DEPTH
            ));
        }
        FRAGMENT_DEPTH.set(depth + 1);
        let rendered = tera.render(template, &context);
        FRAGMENT_DEPTH.set(depth);
        let html = match rendered {
            Ok(html) => html,
            Err(err) => {
                return fail(FRAGMENT_ERROR.take().unwrap_or_else(|| {
                    format!(
                        "render_cached of {template} for key {key:?}: {}",
                        describe(&err)
                    )
                }))
            }
        };
        // Rendered by two threads at once, a fragment comes out the same: keep the first.
        let bytes = html.len() + key.len();
        Ok(self
            .rendered
            .insert(cache_key, tera::Value::safe_string(&html), bytes))
    }
}

/// A Tera instance loaded with the theme.
pub struct Renderer {
    tera: Arc<Tera>,
    hashes: TemplateHashes,
    /// By template name, the size of its last output: the next one's buffer starts that
    /// large, so a big page is not copied again and again as it grows.
    last_sizes: HashMap<String, std::sync::atomic::AtomicUsize>,
    /// The `render_cached` fragments of this build (the registered function holds them;
    /// kept here for tests to look at).
    #[cfg_attr(not(test), allow(dead_code))]
    fragments: Arc<FragmentCache>,
}

impl Renderer {
    /// Loads the default templates, then `overrides` (`(file name, source)`, e.g. from a
    /// site's `templates/`) on top. A template that does not parse is an error naming the
    /// file, line and column.
    pub fn new(overrides: &[(String, String)]) -> Result<Renderer, Diagnostic> {
        let mut templates: Vec<(String, String)> = DEFAULT_TEMPLATES
            .iter()
            .filter(|(name, _)| !overrides.iter().any(|(o, _)| o == name))
            .map(|(name, source)| (name.to_string(), source.to_string()))
            .collect();
        templates.extend(overrides.iter().cloned());
        let mut html = Vec::new();
        let mut atom = Vec::new();
        let mut sitemap = 0;
        let mut sorted: Vec<&(String, String)> = templates.iter().collect();
        sorted.sort();
        for (name, source) in sorted {
            let hash = content_hash(format!("{name}\0{source}").as_bytes());
            match name.as_str() {
                "sitemap.xml" => sitemap = hash,
                // `atom.xml` and the fragments it renders (`macros/feed_entry.xml`).
                xml if xml.ends_with(".xml") => atom.extend_from_slice(&hash.to_le_bytes()),
                _ => html.extend_from_slice(&hash.to_le_bytes()),
            }
        }
        let hashes = TemplateHashes {
            html: content_hash(&html),
            atom: content_hash(&atom),
            sitemap,
        };
        let last_sizes = templates
            .iter()
            .map(|(name, _)| (name.clone(), std::sync::atomic::AtomicUsize::new(0)))
            .collect();
        let fragments = Arc::new(FragmentCache {
            tera: OnceLock::new(),
            rendered: BoundedCache::new(FragmentCache::MAX_BYTES),
        });
        let mut tera = Tera::new();
        tera.autoescape_on(vec![".html", ".xml"]);
        let function = Arc::clone(&fragments);
        tera.register_function("render_cached", move |kwargs: Kwargs, _: &State| {
            function.render_cached(kwargs)
        });
        tera.add_raw_templates(templates)
            .map_err(|err| template_error("templates could not be loaded", &err))?;
        let tera = Arc::new(tera);
        // Set once, here; the cell was made empty just above.
        let _ = fragments.tera.set(Arc::downgrade(&tera));
        Ok(Renderer {
            tera,
            hashes,
            last_sizes,
            fragments,
        })
    }

    /// Hashes of the loaded templates, for output fingerprints.
    pub fn template_hashes(&self) -> TemplateHashes {
        self.hashes
    }

    /// Produces one planned output: renders its template with the context `maker`
    /// makes, or takes the bytes it makes.
    pub fn render_output(
        &self,
        maker: &OutputMaker,
        planned: &PlannedOutput,
    ) -> Result<RenderedFile, Diagnostic> {
        let context = match maker.make(&planned.kind) {
            Output::Bytes(bytes) => return Ok(finished_file(maker, planned, bytes)),
            Output::Page(context) => Context::from_serialize(&context),
            Output::Feed(context) => Context::from_serialize(&context),
            Output::Sitemap(context) => Context::from_serialize(&context),
        }
        .map_err(|err| {
            template_error(
                &format!("context of {} is not serializable", planned.path),
                &err,
            )
        })?;
        let template = planned.template.unwrap_or_default();
        let last_size = self.last_sizes.get(template);
        let capacity = last_size.map_or(0, |size| size.load(Ordering::Relaxed));
        // Rendered as bytes: Tera writes only UTF-8, so its output need not be checked
        // and converted to a string.
        let mut bytes = Vec::with_capacity(capacity + capacity / 8);
        self.tera
            .render_to(template, &context, &mut bytes)
            .map_err(|err| {
                template_error(
                    &format!("rendering {} with template {template} failed", planned.path),
                    &err,
                )
            })?;
        if let Some(size) = last_size {
            size.store(bytes.len(), Ordering::Relaxed);
        }
        Ok(finished_file(maker, planned, bytes))
    }

    /// Produces every one of `outputs` in parallel and hands each file to `sink` as soon
    /// as it is ready; only the outputs in flight are held in memory. Stops at the first
    /// failure (of rendering or of `sink`) and returns it.
    /// Outputs for which `wanted(index)` is false are skipped.
    pub fn render_each(
        &self,
        outputs: &[PlannedOutput],
        maker: &OutputMaker,
        progress: &ProgressBar,
        wanted: impl Fn(usize) -> bool + Sync,
        sink: impl Fn(RenderedFile) -> Result<(), Diagnostic> + Sync,
    ) -> Result<(), Diagnostic> {
        let result = outputs
            .par_iter()
            .enumerate()
            .progress_with(progress.clone())
            .filter(|(index, _)| wanted(*index))
            .try_for_each(|(_, planned)| sink(self.render_output(maker, planned)?));
        progress.finish_and_clear();
        result
    }
}

fn template_error(what: &str, err: &tera::Error) -> Diagnostic {
    Diagnostic::error(format!("{what}: {}", describe(err)), None)
}

/// `err` and the errors that caused it, one per line.
fn describe(err: &tera::Error) -> String {
    let mut detail = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        detail.push_str("\n  caused by: ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    detail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renderer(templates: &[(&str, &str)]) -> Renderer {
        let overrides: Vec<(String, String)> = templates
            .iter()
            .map(|(name, source)| (name.to_string(), source.to_string()))
            .collect();
        Renderer::new(&overrides).expect("templates load")
    }

    fn render(renderer: &Renderer, template: &str, context: &Context) -> Result<String, String> {
        renderer
            .tera
            .render(template, context)
            .map_err(|err| format!("{err:?}"))
    }

    /// A list whose items are fragments keyed by `key`.
    const LIST: &[(&str, &str)] = &[
        ("item.html", "<i>{{ name }}</i>"),
        (
            "list.html",
            "{% for p in people %}{{ render_cached(template=\"item.html\", key=p.key, name=p.name) }};{% endfor %}",
        ),
    ];

    #[test]
    fn render_cached_renders_a_key_once_and_does_not_escape_it_again() {
        let cached = renderer(LIST);
        let mut context = Context::new();
        context.insert(
            "people",
            &serde_json::json!([
                {"key": "a", "name": "Ann & <Bo>"},
                {"key": "b", "name": "Cy"},
                {"key": "a", "name": "not rendered: key a is made already"},
            ]),
        );
        assert_eq!(
            render(&cached, "list.html", &context).unwrap(),
            "<i>Ann &amp; &lt;Bo&gt;</i>;<i>Cy</i>;<i>Ann &amp; &lt;Bo&gt;</i>;"
        );
        // The cache lasts as long as the renderer: another page gets the same fragment.
        context.insert("people", &serde_json::json!([{"key": "a", "name": "Dee"}]));
        assert_eq!(
            render(&cached, "list.html", &context).unwrap(),
            "<i>Ann &amp; &lt;Bo&gt;</i>;"
        );
        // A new renderer (a new build) renders again.
        let fresh = renderer(LIST);
        assert_eq!(
            render(&fresh, "list.html", &context).unwrap(),
            "<i>Dee</i>;"
        );
    }

    #[test]
    fn the_sitemap_template_writes_a_list_of_pages_or_an_index_of_sitemaps() {
        let theme = renderer(&[]);
        let mut context = Context::new();
        context.insert("urls", &["/a/", "/b/"]);
        context.insert("sitemaps", &Vec::<String>::new());
        let pages = render(&theme, "sitemap.xml", &context).unwrap();
        assert!(
            pages.contains("<urlset") && !pages.contains("<sitemapindex"),
            "{pages}"
        );
        assert_eq!(pages.matches("<url><loc>").count(), 2);
        context.insert("urls", &Vec::<String>::new());
        context.insert("sitemaps", &["/sitemaps/0.xml", "/sitemaps/1.xml"]);
        let index = render(&theme, "sitemap.xml", &context).unwrap();
        assert!(
            index.contains("<sitemapindex") && !index.contains("<urlset"),
            "{index}"
        );
        assert!(
            index.contains("<sitemap><loc>/sitemaps/1.xml</loc></sitemap>"),
            "{index}"
        );
    }

    #[test]
    fn a_full_fragment_cache_starts_again_and_fragments_stay_the_same() {
        let cached = renderer(LIST);
        // Fragments of 1 MB each: 40 of them fill the cache, which empties.
        let big = "x".repeat(1 << 20);
        let people: Vec<serde_json::Value> = (0..40)
            .map(|i| serde_json::json!({"key": format!("k{i}"), "name": format!("{i}{big}")}))
            .collect();
        let mut context = Context::new();
        context.insert("people", &people);
        let first = render(&cached, "list.html", &context).unwrap();
        assert_eq!(first.matches("<i>").count(), 40);
        let held = cached.fragments.rendered.bytes();
        assert!(held <= FragmentCache::MAX_BYTES, "{held} bytes held");
        assert!(held < 40 << 20, "the cache started again");
        // The first key was dropped: it is made again, from this call's context.
        context.insert(
            "people",
            &serde_json::json!([{"key": "k0", "name": "again"}]),
        );
        assert_eq!(
            render(&cached, "list.html", &context).unwrap(),
            "<i>again</i>;"
        );
        // The last one is still held.
        context.insert(
            "people",
            &serde_json::json!([{"key": "k39", "name": "other"}]),
        );
        let last = render(&cached, "list.html", &context).unwrap();
        assert!(last.starts_with("<i>39xxx"), "{}", &last[..10]);
    }

    #[test]
    fn render_cached_keeps_templates_apart_and_reports_bad_calls() {
        let renderer = renderer(&[
            ("one.html", "1:{{ x }}"),
            ("two.html", "2:{{ x }}"),
            (
                "page.html",
                "{{ render_cached(template=\"one.html\", key=\"k\", x=7) }} {{ render_cached(template=\"two.html\", key=\"k\", x=8) }}",
            ),
            ("no_key.html", "{{ render_cached(template=\"one.html\", x=1) }}"),
            (
                "missing.html",
                "{{ render_cached(template=\"nowhere.html\", key=\"k\") }}",
            ),
            (
                "broken.html",
                "{{ render_cached(template=\"uses_unknown.html\", key=\"k\") }}",
            ),
            ("uses_unknown.html", "{{ unknown.field }}"),
            (
                "outer.html",
                "[{{ render_cached(template=\"uses_unknown.html\", key=\"inner\") }}]",
            ),
            (
                "nested.html",
                "{{ render_cached(template=\"outer.html\", key=\"outer\") }}",
            ),
            (
                "itself.html",
                "<{{ render_cached(template=\"itself.html\", key=\"k\") }}>",
            ),
        ]);
        let context = Context::new();
        assert_eq!(render(&renderer, "page.html", &context).unwrap(), "1:7 2:8");
        let no_key = render(&renderer, "no_key.html", &context).unwrap_err();
        assert!(no_key.contains("key"), "{no_key}");
        let missing = render(&renderer, "missing.html", &context).unwrap_err();
        assert!(missing.contains("nowhere.html"), "{missing}");
        let broken = render(&renderer, "broken.html", &context).unwrap_err();
        assert!(broken.contains("uses_unknown.html"), "{broken}");
        assert!(broken.contains("`unknown`"), "the cause is kept: {broken}");
        // A fragment failing inside another is reported once, where it failed.
        let nested = render(&renderer, "nested.html", &context).unwrap_err();
        assert!(
            nested.contains("uses_unknown.html for key \\\"inner\\\""),
            "{nested}"
        );
        assert!(nested.contains("`unknown`"), "{nested}");
        assert_eq!(nested.matches("render_cached of").count(), 1, "{nested}");
        // A fragment that renders itself is an error, not a stack overflow.
        let itself = render(&renderer, "itself.html", &context).unwrap_err();
        assert!(itself.contains("nested more than 16 deep"), "{itself}");
        assert_eq!(itself.matches("render_cached of").count(), 1, "{itself}");
    }
}
