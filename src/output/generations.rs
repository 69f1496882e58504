//! Building a site in generations, so that a web server never sees two builds mixed.
//!
//! In this mode the output path is a symbolic link to the current generation, a
//! numbered folder in a sibling folder named after it (`public` -> `public.generations/7`):
//!
//! 1. A build makes the next generation (`public.generations/8`) and fills it with hard
//!    links to every file of the current one (its own and any put there by hand), so
//!    that only what changed is written. Files are only ever replaced by a rename,
//!    never written in place, so the current generation, which shares those files, is
//!    never touched.
//! 2. The build writes into the new generation as into any output folder
//!    ([`super::OutputWriter`]: staging, manifest, containment).
//! 3. Once it has succeeded, a link to the new generation is made under a temporary
//!    name and renamed over the output path: one `rename`, which the system makes
//!    atomically. Until then the link leads to the whole old site, after it to the whole
//!    new one; a killed or failed build leaves it as it was.
//! 4. The generations older than the one just replaced are removed (the one replaced
//!    stays, for readers still in it). A generation left by a killed build is removed by
//!    the next build.
//!
//! This guards against a killed build or a crashed program, not against a power loss:
//! nothing is flushed to the disk before the switch.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{folder_entries, io_err, OutputError, OutputLock, STAGING_DIR};

/// The folder holding the generations of the output path `link`: its sibling
/// `<name>.generations`.
pub fn generations_dir(link: &Path) -> PathBuf {
    let mut name = link.file_name().map(OsString::from).unwrap_or_default();
    name.push(".generations");
    link.with_file_name(name)
}

/// Takes the lock of the output path `link`, which covers all its generations: its
/// file is in the generations folder (made if missing), which no generation replaces.
pub fn lock(link: &Path) -> Result<OutputLock, OutputError> {
    let store = generations_dir(link);
    fs::create_dir_all(&store).map_err(io_err("create", &store))?;
    OutputLock::acquire(&store)
}

/// The generation `link` leads to, if it is a symbolic link to a generation in its
/// generations folder (`<name>.generations/<number>`).
pub fn current_generation(link: &Path) -> Option<u64> {
    let target = fs::read_link(link).ok()?;
    let store = generations_dir(Path::new(link.file_name()?));
    let number = target.strip_prefix(&store).ok()?;
    number.to_str()?.parse().ok()
}

/// The next generation of an output path, being built; see the module documentation.
#[derive(Debug)]
pub struct NextGeneration {
    /// The output path: the symbolic link.
    link: PathBuf,
    /// Where the generations are.
    store: PathBuf,
    /// The generation the link leads to now, if any.
    current: Option<u64>,
    /// This generation's number.
    number: u64,
}

impl NextGeneration {
    /// Makes the next generation of the output path `link`: removes what killed builds
    /// left, makes the new folder and links the current generation's files into it. The
    /// output path must be missing, an empty folder, or a link to a generation.
    pub fn prepare(link: &Path) -> Result<NextGeneration, OutputError> {
        let store = generations_dir(link);
        let linked = current_generation(link);
        // A link to a generation that is gone (removed by hand) is replaced like any.
        let current = linked.filter(|n| store.join(n.to_string()).is_dir());
        if linked.is_none() {
            check_can_become_link(link, &store)?;
        }
        fs::create_dir_all(&store).map_err(io_err("create", &store))?;
        let numbers = generation_numbers(&store)?;
        // Generations newer than the current one are what killed or failed builds left.
        numbers
            .iter()
            .filter(|n| current.is_none_or(|c| **n > c))
            .try_for_each(|n| remove_tree(&store.join(n.to_string())))?;
        let number = numbers.iter().copied().chain(current).max().unwrap_or(0) + 1;
        let dir = store.join(number.to_string());
        fs::create_dir(&dir).map_err(io_err("create", &dir))?;
        let next = NextGeneration {
            link: link.to_path_buf(),
            store,
            current,
            number,
        };
        if let Some(current) = current {
            let from = next.store.join(current.to_string());
            if let Err(err) = link_tree(&from, &dir, Some(STAGING_DIR)) {
                next.discard();
                return Err(err);
            }
        }
        Ok(next)
    }

    /// The folder the build writes into.
    pub fn dir(&self) -> PathBuf {
        self.store.join(self.number.to_string())
    }

    /// Makes the output path lead to this generation, in one rename, then removes the
    /// generations before the one it replaced (as far as it can: once the link is
    /// switched, the build has succeeded).
    pub fn switch(self) -> Result<(), OutputError> {
        let name = self.link.file_name().unwrap_or_default().to_string_lossy();
        let target = generations_dir(Path::new(&*name)).join(self.number.to_string());
        let temp = self.link.with_file_name(format!(".{name}.profilegen-link"));
        match fs::remove_file(&temp) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => {
                return Err(io_err("remove", &temp)(err))
            }
            _ => {}
        }
        std::os::unix::fs::symlink(&target, &temp).map_err(io_err("create", &temp))?;
        if fs::symlink_metadata(&self.link).is_ok_and(|m| m.is_dir()) {
            // An empty folder, checked when the generation was prepared.
            fs::remove_dir(&self.link).map_err(io_err("replace", &self.link))?;
        }
        fs::rename(&temp, &self.link).map_err(io_err("replace", &self.link))?;
        // The new site is in place: a generation that cannot be removed now is not a
        // failure of this build, and the next one tries again.
        let keep = [Some(self.number), self.current];
        for old in generation_numbers(&self.store).unwrap_or_default() {
            if !keep.contains(&Some(old)) && old < self.number {
                let _ = remove_tree(&self.store.join(old.to_string()));
            }
        }
        Ok(())
    }

    /// Removes this generation: the output path stays as it was.
    pub fn discard(self) {
        let _ = remove_tree(&self.dir());
    }
}

/// Refuses an output path that a link cannot replace: a folder with files, a file, or a
/// link that does not lead to a generation.
fn check_can_become_link(link: &Path, store: &Path) -> Result<(), OutputError> {
    let refuse = |why: String| OutputError {
        path: link.to_path_buf(),
        action: "build generations at",
        source: io::Error::new(io::ErrorKind::AlreadyExists, why),
    };
    let Ok(meta) = fs::symlink_metadata(link) else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        let to = fs::read_link(link).unwrap_or_default();
        return Err(refuse(format!(
            "it is a link to {}, not to a generation in {}",
            to.display(),
            store.display()
        )));
    }
    if !meta.is_dir() {
        return Err(refuse("it is a file, not a folder".into()));
    }
    let mut entries = fs::read_dir(link).map_err(io_err("read", link))?;
    if entries.next().is_some() {
        return Err(refuse(
            "it is a folder with files; move it away (or remove it) and build again: the \
             output path then becomes a link to the current generation"
                .into(),
        ));
    }
    Ok(())
}

/// The numbers of the generations in `store` (entries named otherwise are left alone).
fn generation_numbers(store: &Path) -> Result<Vec<u64>, OutputError> {
    let mut numbers = Vec::new();
    for entry in fs::read_dir(store).map_err(io_err("read", store))? {
        let entry = entry.map_err(io_err("read", store))?;
        let name = entry.file_name();
        if let Some(number) = name.to_str().and_then(|n| n.parse::<u64>().ok()) {
            if name.to_str() == Some(number.to_string().as_str()) {
                numbers.push(number);
            }
        }
    }
    numbers.sort_unstable();
    Ok(numbers)
}

/// Makes in the empty folder `to` the tree of `from`: the same folders, a hard link to
/// each file, a copy of each symbolic link; an entry of `from` named `skip` is left out.
fn link_tree(from: &Path, to: &Path, skip: Option<&str>) -> Result<(), OutputError> {
    let entries = folder_entries(from)?;
    entries.par_iter().try_for_each(|entry| {
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().map_err(io_err("inspect", &source))?;
        if kind.is_dir() {
            if skip.is_some_and(|skip| entry.file_name() == skip) {
                return Ok(());
            }
            fs::create_dir(&target).map_err(io_err("create", &target))?;
            link_tree(&source, &target, None)
        } else if kind.is_symlink() {
            let points_to = fs::read_link(&source).map_err(io_err("read", &source))?;
            std::os::unix::fs::symlink(points_to, &target).map_err(io_err("create", &target))
        } else {
            fs::hard_link(&source, &target).map_err(io_err("link", &target))
        }
    })
}

/// Removes a folder and everything in it, its subfolders in parallel. A missing folder
/// is no error.
fn remove_tree(dir: &Path) -> Result<(), OutputError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(io_err("read", dir)(err)),
    };
    let entries: Vec<fs::DirEntry> = entries
        .collect::<Result<_, _>>()
        .map_err(io_err("read", dir))?;
    entries.par_iter().try_for_each(|entry| {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => remove_tree(&path),
            _ => fs::remove_file(&path).map_err(io_err("remove", &path)),
        }
    })?;
    fs::remove_dir(dir).map_err(io_err("remove", dir))
}
