//! Where a suite problem's data file is, and whether it is there before anything runs.

use super::SuiteProblem;
use std::path::Path;

impl SuiteProblem {
    /// Points the problem's data file (a catalyst or svm problem's) into `dir`: the file of the
    /// same name as the spec's, `dir/NAME`, or if that is missing and `dir/FOLDER/NAME` exists (FOLDER
    /// the spec's folder of it, e.g. `ocx24`), that one; so both `--data ../shared/data/ocx24` and
    /// `--data ../shared/data` find `../shared/data/ocx24/ExpDataDump_241113_clean.csv`. A problem
    /// without a data file is unchanged.
    pub fn with_data_dir(mut self, dir: &Path) -> Self {
        if let Some(p) = self.spec.problem.data_path_mut()
            && let Some(name) = p.file_name().map(std::ffi::OsStr::to_os_string)
        {
            let direct = dir.join(&name);
            let nested = p.parent().and_then(Path::file_name).map(|f| dir.join(f).join(&name));
            *p = match nested {
                Some(n) if !direct.exists() && n.exists() => n,
                _ => direct,
            };
        }
        self
    }

    /// Why the problem cannot run before anything runs: its data file is missing (naming the path);
    /// `None` if it has none or it exists.
    pub fn missing_data(&self) -> Option<String> {
        let p = self.spec.problem.data_path()?;
        (!p.is_file())
            .then(|| format!("its data file `{}` is missing (point at its folder with --data DIR)", p.display()))
    }
}
