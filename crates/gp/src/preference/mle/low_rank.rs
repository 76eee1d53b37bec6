//! The low-rank Newton step of the MLE, for many candidates of which few are duelled: the n×n
//! system solved through the duelled support.

use super::*;

/// The fewest candidates for which [`KernelLogistic::fit`] may take the low-rank Newton path. Below
/// it the dense n×n solve costs milliseconds, and keeping it leaves the fits of small problems (all
/// the papers' experiments) bit-for-bit as before the low-rank path existed.
pub const LOW_RANK_MIN_CANDIDATES: usize = 256;

/// How [`KernelLogistic`]'s Newton system is solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NewtonSystem {
    /// Low rank (Woodbury, m×m) when 2m < n, else dense.
    Auto,
    /// Always the dense n×n system.
    Dense,
}

/// The candidates that appear in a non-self duel, sorted (S, with m = |S|), and each candidate's
/// position in S.
pub(super) struct Support {
    members: Vec<usize>,
    position: Vec<Option<usize>>,
}

impl Support {
    pub(super) fn of(duels: &Duels) -> Self {
        let mut position = vec![None; duels.n_candidates()];
        for d in duels.iter().filter(|d| d.first != d.second) {
            position[d.first] = Some(0);
            position[d.second] = Some(0);
        }
        let mut members = Vec::new();
        for (c, p) in position.iter_mut().enumerate() {
            if p.is_some() {
                *p = Some(members.len());
                members.push(c);
            }
        }
        Self { members, position }
    }

    pub(super) fn len(&self) -> usize {
        self.members.len()
    }

    /// The m×m block of the weighted Laplacian C_W = Dᵀ diag(w) D on S (all weights 1 if `None`).
    pub(super) fn laplacian(&self, duels: &Duels, weights: Option<&DVector<f64>>) -> DMatrix<f64> {
        let mut c = DMatrix::zeros(self.len(), self.len());
        for (k, d) in duels.iter().enumerate() {
            let (Some(i), Some(j)) = (self.position[d.first], self.position[d.second]) else { continue };
            if i == j {
                continue;
            }
            let w = weights.map_or(1.0, |w| w[k]);
            c[(i, i)] += w;
            c[(j, j)] += w;
            c[(i, j)] -= w;
            c[(j, i)] -= w;
        }
        c
    }
}

/// The Newton step J⁻¹ b by the Woodbury identity, (λI + U Vᵀ)⁻¹ b = (b − U (λI + Vᵀ U)⁻¹ Vᵀ b)/λ,
/// with the rank-m factors of J − λI on the duelled candidates S (K_S = K[S, S], C and C_W the
/// m×m Laplacian blocks, `curv` the scaled weights s ℓ″):
///
/// - ThetaNorm, J = K C_W K C + λI: U = K[:, S], Vᵀ b = C_W K_S C b_S, Vᵀ U = C_W K_S C K_S;
/// - RkhsNorm, J = C_W K + λI: U = E_S C_W (E_S the columns of I on S), Vᵀ b = K[S, :] b,
///   Vᵀ U = K_S C_W.
///
/// `None` if the m×m system is singular.
pub(super) fn low_rank_step(
    k: &DMatrix<f64>,
    duels: &Duels,
    support: &Support,
    curv: &DVector<f64>,
    lambda: f64,
    theta_norm: bool,
    b: &DVector<f64>,
) -> Option<DVector<f64>> {
    let m = support.len();
    let s_idx = &support.members;
    let ks = DMatrix::from_fn(m, m, |i, j| k[(s_idx[i], s_idx[j])]);
    let cw = support.laplacian(duels, Some(curv));
    let mut step = b / lambda;
    if theta_norm {
        let c = support.laplacian(duels, None);
        let cw_ks_c = &cw * &ks * &c;
        let b_s = DVector::from_fn(m, |i, _| b[s_idx[i]]);
        let mut small = &cw_ks_c * &ks;
        for i in 0..m {
            small[(i, i)] += lambda;
        }
        let z = small.lu().solve(&(&cw_ks_c * b_s))?;
        for (p, &c) in s_idx.iter().enumerate() {
            step.axpy(-z[p] / lambda, &k.column(c), 1.0);
        }
    } else {
        let y = DVector::from_fn(m, |i, _| k.row(s_idx[i]).transpose().dot(b));
        let mut small = &ks * &cw;
        for i in 0..m {
            small[(i, i)] += lambda;
        }
        let w = &cw * small.lu().solve(&y)?;
        for (p, &c) in s_idx.iter().enumerate() {
            step[c] -= w[p] / lambda;
        }
    }
    Some(step)
}
