"""Numerics on numpy: each result against an independent numpy computation of its formula."""

import math

import numpy as np
import pytest

import bohf


def se_gram(x, y, ls, var=1.0):
    d2 = ((x[:, None, :] - y[None, :, :]) ** 2 / np.asarray(ls) ** 2).sum(-1)
    return var * np.exp(-0.5 * d2)


def matern52(x, y, ls):
    r = np.sqrt(((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)) / ls
    s = math.sqrt(5) * r
    return (1 + s + s**2 / 3) * np.exp(-s)


@pytest.fixture
def points():
    return np.random.default_rng(0).uniform(size=(30, 3))


def test_gram_and_cross_gram_equal_the_formulas(points):
    x, y = points[:20], points[20:]
    np.testing.assert_allclose(bohf.gram(x, kind="se", lengthscale=0.3), se_gram(x, x, 0.3), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(
        bohf.gram(x, kind="se", lengthscales=[0.2, 0.5, 1.0], variance=2.0),
        se_gram(x, x, [0.2, 0.5, 1.0], 2.0),
        rtol=1e-13,
        atol=1e-15,
    )
    np.testing.assert_allclose(bohf.cross_gram(x, y, lengthscale=0.4), matern52(x, y, 0.4), rtol=1e-12, atol=1e-15)
    # A Fortran-ordered or strided array is read the same.
    np.testing.assert_array_equal(bohf.gram(np.asfortranarray(x), kind="se"), bohf.gram(x, kind="se"))
    np.testing.assert_array_equal(bohf.gram(points[::-1][:20][::-1], kind="se"), bohf.gram(points[-20:], kind="se"))


def test_dueling_gram_is_the_pair_formula():
    k = se_gram(*[np.linspace(0, 1, 6)[:, None]] * 2, 0.3)
    left = [(0, 1), (2, 5), (3, 3)]
    right = [(4, 0), (1, 2)]
    want = np.array([[k[i, u] + k[j, v] - k[i, v] - k[j, u] for (u, v) in right] for (i, j) in left])
    np.testing.assert_allclose(bohf.dueling_gram(k, left, right), want, rtol=1e-14, atol=1e-15)
    add = np.array([[k[i, u] + k[j, v] for (u, v) in left] for (i, j) in left])
    np.testing.assert_allclose(bohf.dueling_gram(k, left, pair_kernel="additive"), add, rtol=1e-14)
    with pytest.raises(bohf.InputError, match=r"left\[1\] = \(2, 9\)"):
        bohf.dueling_gram(k, [(0, 1), (2, 9)])


def test_information_gain_and_greedy_gamma(points):
    k = bohf.gram(points, kind="se", lengthscale=0.3)
    rho = 0.1
    want = 0.5 * np.linalg.slogdet(np.eye(len(k)) + k / rho)[1]
    assert bohf.information_gain(k, rho) == pytest.approx(want, rel=1e-12)
    g = bohf.greedy_gamma(k, rho, 8)
    chosen = g["chosen"]
    sub = k[np.ix_(chosen, chosen)]
    assert g["value"] == pytest.approx(0.5 * np.linalg.slogdet(np.eye(8) + sub / rho)[1], rel=1e-10)
    assert g["lower"] == g["value"] and g["upper"] == pytest.approx(g["value"] / (1 - math.exp(-1)), rel=1e-15)
    assert len(g["trajectory"]) == 8 and g["trajectory"][-1] == pytest.approx(g["value"], rel=1e-12)
    # Greedy picks the maximum-variance point first: all equal here, so the lowest index.
    assert chosen[0] == 0
    pairs = bohf.greedy_gamma(k, rho, 5, pairs="dueling")
    kd = bohf.dueling_gram(k, pairs["chosen"])
    assert pairs["value"] == pytest.approx(0.5 * np.linalg.slogdet(np.eye(5) + kd / rho)[1], rel=1e-10)


def test_preference_model_posterior_and_samples():
    x = np.linspace(0, 1, 8)[:, None]
    k = se_gram(x, x, 0.3)
    m = bohf.PreferenceModel(k, rho=0.05)
    np.testing.assert_array_equal(m.mean(), np.zeros(8))
    np.testing.assert_allclose(m.probability(), np.full((8, 8), 0.5))
    duels = [(0, 3, False), (3, 7, True), (5, 3, False), (2, 6, True)]
    m.observe(duels)
    # σ²(i, j) = Ŝ_ii + Ŝ_jj − 2Ŝ_ij with Ŝ = K − K Dᵀ (D K Dᵀ + ρI)⁻¹ D K (MR-LPF eq. (10)).
    d = np.zeros((len(duels), 8))
    for r, (i, j, _) in enumerate(duels):
        d[r, i], d[r, j] = 1.0, -1.0
    s = k - k @ d.T @ np.linalg.solve(d @ k @ d.T + 0.05 * np.eye(len(duels)), d @ k)
    var = np.diag(s)[:, None] + np.diag(s)[None, :] - 2 * s
    np.testing.assert_allclose(m.sigma() ** 2, np.maximum(var, 0), atol=1e-10)
    g = m.mean()
    assert g[3] == g.max()  # 3 won every duel it played
    np.testing.assert_allclose(m.probability(), 1 / (1 + np.exp(-(g[:, None] - g[None, :]))), rtol=1e-12)
    a = m.samples(4000, seed=7)
    assert a.shape == (4000, 8)
    np.testing.assert_array_equal(a, m.samples(4000, seed=7))
    # The draws' differences have the posterior's covariance (a 4000-draw estimate).
    diffs = a[:, 0] - a[:, 7]
    assert diffs.mean() == pytest.approx(g[0] - g[7], abs=4 * math.sqrt(var[0, 7] / 4000) + 1e-12)
    assert diffs.var() == pytest.approx(var[0, 7], rel=0.1)
    with pytest.raises(bohf.InputError, match=r"duels\[0\]"):
        m.observe([(0, 8, True)])
    with pytest.raises(bohf.SpecError, match="lambda"):
        bohf.PreferenceModel(k, mle={"lambda": "big"})


def test_bad_arrays_raise_input_errors_naming_the_argument(points):
    with pytest.raises(bohf.InputError, match=r"x: need a 2-D float64 numpy array .*int64 array of shape \(3, 2\)"):
        bohf.gram(np.ones((3, 2), dtype=np.int64))
    with pytest.raises(bohf.InputError, match=r"x: need a 2-D float64 .*shape \(3,\)"):
        bohf.gram(np.ones(3))
    with pytest.raises(bohf.InputError, match=r"x: need a 2-D float64 .*`list`"):
        bohf.gram([[1.0, 2.0]])
    bad = points.copy()
    bad[4, 2] = np.inf
    with pytest.raises(bohf.InputError, match=r"y: entry \[4, 2\] is inf"):
        bohf.cross_gram(points, bad)
    with pytest.raises(bohf.InputError, match="dimension|dim"):
        bohf.cross_gram(points, points[:, :2])
    with pytest.raises(bohf.InputError, match=r"gram: need a square n×n matrix, got shape \(30, 3\)"):
        bohf.information_gain(points, 0.1)
    with pytest.raises(bohf.SpecError, match="kernel"):
        bohf.gram(points, kind="gaussian")
    with pytest.raises(bohf.InputError, match="lengthscale"):
        bohf.gram(points, lengthscale=-1.0)
    with pytest.raises(bohf.InputError, match="noise|ρ|rho"):
        bohf.information_gain(bohf.gram(points), 0.0)


def test_confidence_bounds_contain_the_mle_nest_in_beta_and_mirror_under_flipped_answers():
    x = np.linspace(0, 1, 7)[:, None]
    k = se_gram(x, x, 0.3)
    duels = [(0, 3, False), (3, 6, True), (5, 3, False), (2, 4, True), (1, 2, False)]
    cfg = {"norm_bound": 3.0}
    wide = bohf.confidence_bounds(k, duels, 2.0, config=cfg)
    narrow = bohf.confidence_bounds(k, duels, 0.5, config=cfg)
    tol = 1e-6
    for b in (wide, narrow):
        assert np.all(b["lower"] <= b["mle"] + tol) and np.all(b["mle"] <= b["upper"] + tol)
        # Inside the B-ball: |f(x)| ≤ B √k(x, x) (Cauchy–Schwarz in the RKHS).
        assert np.all(np.abs(b["upper"]) <= 3.0 * np.sqrt(np.diag(k)) + tol)
        assert np.all(np.abs(b["lower"]) <= 3.0 * np.sqrt(np.diag(k)) + tol)
    # A larger β gives a larger set.
    assert np.all(wide["upper"] >= narrow["upper"] - tol) and np.all(wide["lower"] <= narrow["lower"] + tol)
    assert np.any(wide["upper"] > narrow["upper"] + 1e-4)
    # f ↦ −f maps the set of the flipped answers onto this one.
    flipped = bohf.confidence_bounds(k, [(i, j, not w) for i, j, w in duels], 2.0, config=cfg)
    np.testing.assert_allclose(flipped["upper"], -wide["lower"], atol=1e-5)
    np.testing.assert_allclose(flipped["mle"], -wide["mle"], atol=1e-5)
    with pytest.raises(bohf.InputError, match="norm_bound"):
        bohf.confidence_bounds(k, duels, 1.0, config={"norm_bound": -1.0})
    with pytest.raises(bohf.SpecError, match="unknown field"):
        bohf.confidence_bounds(k, duels, 1.0, config={"norm": 1.0})
