//! The one table of test functions, [`FUNCTIONS`]: each name [`by_name`] accepts, with its
//! constructor. [`by_name`], [`low_fidelity`], the list of names in their errors, the tests that
//! iterate every function and the generated function list of `docs/problems.md` (`cargo xtask docs`)
//! all read it. Its rows are written by the group modules (`two_d::ROWS`, …); adding a function to a
//! group is its type and one row, both in the group's file.

use super::{TestFunction, hartmann, multi_fidelity, scalable, two_d};
use bohf_core::{Error, Result};
use std::sync::LazyLock;

/// The dimension at which a scalable function is built when none is given by the caller of
/// [`FunctionEntry::build_default`] (the table tests and the generated list of `docs/problems.md`).
pub const SCALABLE_DEFAULT_DIM: usize = 2;

/// How an entry of [`FUNCTIONS`] builds its function.
#[derive(Debug, Clone, Copy)]
pub enum Constructor {
    /// A function of one fixed dimension.
    Fixed(fn() -> Box<dyn TestFunction>),
    /// A scalable function, built for a dimension d; an error names `dim` if d is too small.
    Scalable(fn(usize) -> Result<Box<dyn TestFunction>>),
}

/// One row of [`FUNCTIONS`].
#[derive(Debug, Clone, Copy)]
pub struct FunctionEntry {
    /// Its place in the lists of names (0, 1, …: [`FUNCTIONS`] is sorted by it; a new function takes
    /// the next number).
    pub place: u16,
    /// The canonical name; [`TestFunction::name`] of the built function returns it.
    pub name: &'static str,
    /// Other names accepted for it (matched like the name, ignoring case, `_`, `-`, `.` and spaces).
    pub aliases: &'static [&'static str],
    /// A family name that, with a dimension d, means the family's member of dimension d (`hartmann`
    /// with d = 6 is `hartmann6`); only for fixed-dimension entries. Written as the error names it.
    pub family: Option<&'static str>,
    /// The canonical name of the entry that is this function's low fidelity, if it has two.
    pub low_fidelity: Option<&'static str>,
    /// How to build it.
    pub constructor: Constructor,
}

/// The row of a function of one fixed dimension, at `place` in the lists of names.
pub(crate) const fn fixed(place: u16, name: &'static str, build: fn() -> Box<dyn TestFunction>) -> FunctionEntry {
    FunctionEntry {
        place,
        name,
        aliases: &[],
        family: None,
        low_fidelity: None,
        constructor: Constructor::Fixed(build),
    }
}

/// The row of a scalable function, at `place` in the lists of names.
pub(crate) const fn scalable(
    place: u16,
    name: &'static str,
    build: fn(usize) -> Result<Box<dyn TestFunction>>,
) -> FunctionEntry {
    FunctionEntry {
        place,
        name,
        aliases: &[],
        family: None,
        low_fidelity: None,
        constructor: Constructor::Scalable(build),
    }
}

impl FunctionEntry {
    pub(crate) const fn aka(self, aliases: &'static [&'static str]) -> Self {
        Self { aliases, ..self }
    }

    pub(crate) const fn in_family(self, family: &'static str) -> Self {
        Self { family: Some(family), ..self }
    }

    pub(crate) const fn low(self, low_fidelity: &'static str) -> Self {
        Self { low_fidelity: Some(low_fidelity), ..self }
    }

    /// Whether the function is built for any dimension (then [`by_name`] needs one).
    pub fn is_scalable(&self) -> bool {
        matches!(self.constructor, Constructor::Scalable(_))
    }

    /// The name as the lists of names show it: `ackley (d)` for a scalable function.
    pub fn listed_name(&self) -> String {
        if self.is_scalable() { format!("{} (d)", self.name) } else { self.name.to_string() }
    }

    /// Whether `key` (a name reduced by [`key`]) is this entry's name or one of its aliases.
    fn answers_to(&self, key: &str) -> bool {
        self::key(self.name) == key || self.aliases.iter().any(|a| self::key(a) == key)
    }

    /// Builds the function at dimension `dim` (required if scalable; if given for a fixed one, it must
    /// match). Errors name the function as `given` (the caller's spelling).
    fn build_as(&self, given: &str, dim: Option<usize>) -> Result<Box<dyn TestFunction>> {
        let f = match self.constructor {
            Constructor::Fixed(build) => build(),
            Constructor::Scalable(build) => build(dim.ok_or_else(|| need_dim(given))?)?,
        };
        if let Some(d) = dim
            && d != f.dim()
        {
            return Err(Error::dims(format!("dimension of test function `{given}`"), f.dim(), d));
        }
        Ok(f)
    }

    /// Builds the function at `dim`, as [`by_name`] does for its name.
    pub fn build(&self, dim: Option<usize>) -> Result<Box<dyn TestFunction>> {
        self.build_as(self.name, dim)
    }

    /// Builds the function at its own dimension, or at [`SCALABLE_DEFAULT_DIM`] if scalable.
    pub fn build_default(&self) -> Result<Box<dyn TestFunction>> {
        self.build(self.is_scalable().then_some(SCALABLE_DEFAULT_DIM))
    }
}

/// Every test function [`by_name`] builds, in the order of the lists of names (errors, the generated
/// docs: by [`FunctionEntry::place`]). Each group module owns its rows (its `ROWS`), so adding a
/// function to a group is its type and one row in that group's file; a new group adds its `ROWS`
/// here.
pub static FUNCTIONS: LazyLock<Vec<FunctionEntry>> = LazyLock::new(|| {
    let mut rows = [scalable::ROWS, two_d::ROWS, hartmann::ROWS, multi_fidelity::ROWS, crate::thermal::ROWS].concat();
    rows.sort_by_key(|e| e.place);
    rows
});

/// A name reduced for matching: alphanumeric characters only, lower case.
fn key(name: &str) -> String {
    name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

fn need_dim(name: &str) -> Error {
    Error::invalid("dim", format!("test function `{name}` needs a dimension"))
}

/// The entry of [`FUNCTIONS`] that `name` (or an alias) names, matched as [`by_name`] does.
pub fn entry(name: &str) -> Option<&'static FunctionEntry> {
    let key = key(name);
    FUNCTIONS.iter().find(|e| e.answers_to(&key))
}

/// Builds a test function from its name, one of [`FUNCTIONS`] or an alias. Matching ignores case,
/// `_`, `-`, `.` and spaces, so `"Holder_table"`, `"HolderTable"` and `"holder-table"` are the same;
/// `"bukin"` is Bukin N.6, `"levy_n13"` is Levy N.13, `"hartmann"` needs `dim` 3 or 6 (a family). The
/// scalable functions need `dim`; for the fixed-dimension ones `dim` may be omitted but must match if
/// given. `"thermal_comfort_2d"` and `"thermal_comfort_4d"` are POP-BO's thermal-comfort problems
/// (utility −PPD, [`crate::thermal::ThermalComfort::popbo_2d`] and
/// [`crate::thermal::ThermalComfort::popbo_4d`]). An unknown name is an error listing the known ones,
/// with the closest as a suggestion.
pub fn by_name(name: &str, dim: Option<usize>) -> Result<Box<dyn TestFunction>> {
    if let Some(e) = entry(name) {
        return e.build_as(name, dim);
    }
    let key = key(name);
    let family: Vec<&FunctionEntry> =
        FUNCTIONS.iter().filter(|e| e.family.is_some_and(|f| self::key(f) == key)).collect();
    if let Some(first) = family.first() {
        let d = dim.ok_or_else(|| need_dim(name))?;
        let mut dims = Vec::new();
        for e in &family {
            let f = e.build_as(name, None)?;
            if f.dim() == d {
                return Ok(f);
            }
            dims.push(f.dim().to_string());
        }
        let family = first.family.unwrap_or_default();
        return Err(Error::invalid("dim", format!("{family} is defined here for d = {}, got {d}", dims.join(" or "))));
    }
    let names: Vec<&str> = FUNCTIONS.iter().map(|e| e.name).collect();
    let hint =
        bohf_core::closest_name(name, &names).map(|s| format!("\nhelp: did you mean `{s}`?")).unwrap_or_default();
    let known: Vec<String> = FUNCTIONS.iter().map(FunctionEntry::listed_name).collect();
    Err(Error::invalid("name", format!("unknown test function `{name}`; known: {}{hint}", known.join(", "))))
}

/// The low fidelity f_c of a two-fidelity function named as [`by_name`] accepts it (`currin_exp` →
/// `currin_exp_low`, `borehole` → `borehole_low`, from [`FunctionEntry::low_fidelity`]):
/// COMP-GP-UCB's comparison source (notes 002 §5.1). Any other name is an error naming `function`
/// and listing the two-fidelity functions.
pub fn low_fidelity(name: &str) -> Result<Box<dyn TestFunction>> {
    match entry(name).and_then(|e| e.low_fidelity) {
        Some(low) => by_name(low, None),
        None => {
            let two: Vec<&str> = FUNCTIONS.iter().filter(|e| e.low_fidelity.is_some()).map(|e| e.name).collect();
            let listed = match two.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => two.join(""),
            };
            Err(Error::invalid(
                "function",
                format!("`{name}` has no low fidelity; the two-fidelity functions are {listed}"),
            ))
        }
    }
}
