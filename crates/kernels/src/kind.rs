//! The one list of kernel kinds: the spec's `kind = "…"`, the stationary profiles, the display names
//! and the smoothness that information-gain orders need all come from [`KernelKind`].
//!
//! Adding a kernel: one variant here with its entry in [`KernelKind::ALL`], and the arms the
//! compiler then asks for here and in `stationary.rs` (its profile φ and slope; a kernel that is not
//! stationary gets its own type implementing [`crate::Kernel`] and an arm in `spec.rs` instead). The
//! property tests (gradients against finite differences, PSD Grams) and the growth-order table
//! iterate over [`KernelKind::ALL`], so the new kernel is checked by them at once. See
//! `docs/extending.md`.

use serde::{Deserialize, Serialize};

/// A kernel kind, spelled in spec files in lowercase (`se`, `matern12`, `matern32`, `matern52`,
/// `linear`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KernelKind {
    /// Squared exponential: φ(r) = exp(−r²/2).
    Se,
    /// Matérn ν = ½ (exponential): φ(r) = exp(−r).
    Matern12,
    /// Matérn ν = 3⁄2: φ(r) = (1 + √3 r) exp(−√3 r).
    Matern32,
    /// Matérn ν = 5⁄2: φ(r) = (1 + √5 r + 5r²/3) exp(−√5 r).
    Matern52,
    /// Linear σ² xᵀy.
    Linear,
}

impl KernelKind {
    /// Every kind, in declaration order (tests and tables iterate over this list).
    pub const ALL: [KernelKind; 5] =
        [KernelKind::Se, KernelKind::Matern12, KernelKind::Matern32, KernelKind::Matern52, KernelKind::Linear];

    /// The display name, e.g. `SE`, `Matérn-5/2`, `linear`.
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Se => "SE",
            KernelKind::Matern12 => "Matérn-1/2",
            KernelKind::Matern32 => "Matérn-3/2",
            KernelKind::Matern52 => "Matérn-5/2",
            KernelKind::Linear => "linear",
        }
    }

    /// Whether the kind is stationary, k(x, y) = σ² φ(‖(x − y) ⊘ ℓ‖₂), and so has lengthscales
    /// (built by [`crate::Stationary`]); the linear kernel is not.
    pub fn is_stationary(self) -> bool {
        match self {
            KernelKind::Se | KernelKind::Matern12 | KernelKind::Matern32 | KernelKind::Matern52 => true,
            KernelKind::Linear => false,
        }
    }

    /// The smoothness class, on which the information-gain orders depend.
    pub fn smoothness(self) -> Smoothness {
        match self {
            KernelKind::Se => Smoothness::Analytic,
            KernelKind::Matern12 => Smoothness::Matern { nu: 0.5 },
            KernelKind::Matern32 => Smoothness::Matern { nu: 1.5 },
            KernelKind::Matern52 => Smoothness::Matern { nu: 2.5 },
            KernelKind::Linear => Smoothness::FiniteRank,
        }
    }
}

/// The smoothness class of a kernel kind ([`KernelKind::smoothness`]): what the maximum information
/// gain Γ(T) depends on (bohf-infogain's growth orders match on it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Smoothness {
    /// A finite-dimensional feature space of dimension d (the linear kernel).
    FiniteRank,
    /// Exponentially decaying spectrum (squared exponential, ν = ∞).
    Analytic,
    /// Matérn smoothness ν (polynomially decaying spectrum).
    Matern {
        /// ν.
        nu: f64,
    },
}

impl std::fmt::Display for KernelKind {
    /// The display name ([`KernelKind::name`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct Holder {
        kind: KernelKind,
    }

    #[test]
    fn all_lists_every_kind_once_and_spec_names_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for k in KernelKind::ALL {
            assert!(seen.insert(k), "{k:?} twice in ALL");
            let text = toml::to_string(&Holder { kind: k }).unwrap();
            assert_eq!(toml::from_str::<Holder>(&text).unwrap().kind, k, "{text}");
        }
        // The spellings committed spec files use (independent of the serde attribute).
        let committed = [
            ("se", KernelKind::Se),
            ("matern12", KernelKind::Matern12),
            ("matern32", KernelKind::Matern32),
            ("matern52", KernelKind::Matern52),
            ("linear", KernelKind::Linear),
        ];
        for (s, k) in committed {
            assert_eq!(toml::from_str::<Holder>(&format!("kind = \"{s}\"")).unwrap().kind, k);
        }
        assert!(toml::from_str::<Holder>("kind = \"Matern52\"").is_err());
    }
}
