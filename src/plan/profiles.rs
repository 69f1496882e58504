//! Author profiles: the name from the record files, with what the configuration and the
//! author's bio add (checked: web URLs, registry identifiers, safe photo paths).

use std::path::Path;

use crate::config::{AuthorDetails, SiteConfig, CONFIG_FILE};
use crate::content::{is_safe_url, is_web_url, Bio};
use crate::diagnostics::{Diagnostic, Location};
use crate::graph::SiteGraph;
use crate::identifiers::{Registry, REGISTRIES};
use crate::normalize::name_key;

/// Profile details of one author after merging config and bio.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    /// Display name (the record files' unless configured).
    pub name: String,
    /// What tells this author from others of the same name (see
    /// [`crate::graph::Author::disambiguation`]).
    pub disambiguation: Option<String>,
    /// Bio as HTML (safe).
    pub bio_html: Option<String>,
    /// Institution.
    pub affiliation: Option<String>,
    /// Homepage (an http(s) URL).
    pub homepage: Option<String>,
    /// Identifiers in scholarly registries, checked, in the order of [`REGISTRIES`].
    pub identifiers: Vec<(Registry, String)>,
    /// Photo: a safe site path or URL.
    pub photo: Option<String>,
}

/// Each author's profile, by author id: bios first, then the configuration's
/// `authors:` settings over them. Bios and settings that match no author are reported.
pub fn merge_profiles(
    graph: &SiteGraph,
    config: &SiteConfig,
    bios: &[Bio],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Profile> {
    let mut profiles: Vec<Profile> = graph
        .authors
        .iter()
        .map(|a| Profile {
            name: a.name.clone(),
            disambiguation: a.disambiguation.clone(),
            ..Profile::default()
        })
        .collect();
    for bio in bios {
        match graph.author_id_by_slug(&bio.slug) {
            Some(id) => {
                let profile = &mut profiles[id];
                let body = bio.body_html.trim();
                profile.bio_html = (!body.is_empty()).then(|| body.to_string());
                apply(profile, &bio.front, &bio.path, diagnostics);
            }
            None => diagnostics.push(
                Diagnostic::warning(
                    format!("bio `{}` matches no author", bio.path.display()),
                    Some(Location::at_line(&bio.path, 1, 1, "", 1)),
                )
                .with_note("name the file after the author's slug, as in /authors/<slug>/"),
            ),
        }
    }
    let config_path = Path::new(CONFIG_FILE);
    for (key, settings) in &config.authors {
        let id = graph
            .authors
            .iter()
            .position(|a| a.slug == *key || a.key == name_key(key));
        match id {
            Some(id) => {
                apply(&mut profiles[id], settings, config_path, diagnostics);
            }
            None => diagnostics.push(Diagnostic::warning(
                format!("{}: `authors.{key}` matches no author", CONFIG_FILE),
                None,
            )),
        }
    }
    profiles
}

/// Merges an author's details into their profile, checking names, URLs and
/// identifiers; what does not check out is reported (at the key's line) and ignored.
fn apply(
    profile: &mut Profile,
    details: &AuthorDetails,
    path: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut reject = |key: &str, what: String| {
        let location = details.location_of(key).cloned();
        let message = match location {
            Some(_) => format!("{what}; ignored"),
            None => format!("{}: {what}; ignored", path.display()),
        };
        diagnostics.push(Diagnostic::warning(message, location));
    };
    if let Some(name) = details.name.as_deref().map(str::trim) {
        if name.is_empty() {
            reject("name", "empty display name".into());
        } else {
            profile.name = name.to_string();
        }
    }
    if let Some(a) = &details.affiliation {
        profile.affiliation = Some(a.clone());
    }
    if let Some(url) = &details.homepage {
        if is_web_url(url) {
            profile.homepage = Some(url.trim().to_string());
        } else {
            reject(
                "homepage",
                format!("homepage `{url}` is not an http(s) URL"),
            );
        }
    }
    for registry in REGISTRIES {
        let Some(written) = details.identifier(registry) else {
            continue;
        };
        match registry.parse(written) {
            Ok(id) => {
                profile.identifiers.retain(|(r, _)| *r != registry);
                profile.identifiers.push((registry, id));
                profile.identifiers.sort();
            }
            Err(why) => reject(registry.key(), format!("{}: {why}", registry.key())),
        }
    }
    if let Some(p) = &details.photo {
        if is_safe_url(p) && !p.contains("..") {
            profile.photo = Some(p.clone());
        } else {
            reject("photo", format!("photo `{p}` is not a safe path or URL"));
        }
    }
}
