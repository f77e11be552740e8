# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: -execution,-ExecuteTime,-collapsed,-scrolled
#     default_lexer: ipython3
#     formats: ipynb,md:myst,py:percent
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Perturbing the cosine router: why mixtures of experts need a constant in the norm
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`nguyen2025perturbing` (ICLR 2025). Question: a mixture of experts whose router
# scores an input by the *cosine* between the input and each expert's key fits the regression
# function as fast as any other router, but how fast does it recover the experts and the router
# itself? The paper shows the plain cosine router can be as slow as $1/\log^{\tau} n$, whatever
# the experts, and that adding constants to the two norms (the *perturbed* cosine router)
# restores polynomial rates when the experts are strongly identifiable. We derive the partial
# differential equation behind the slow rate, fit mixtures of GELU experts by converged least
# squares with three routers (plain cosine, perturbed cosine, linear) for $n$ from 500 to 32 000,
# and measure the regression error and the Voronoi loss of the parameters. The defaults run in
# well under a minute on one CPU core; `make run CHAPTER=perturbed-cosine-router-moe
# PRESET=paper` extends the sample sizes to $n = 128\,000$ and adds replicates.
# ```
#
# ## The question
#
# A mixture of experts (MoE) {cite:p}`jacobs1991adaptive` splits its input space among several
# small models, the *experts*, and a *router* decides with a softmax how much each expert
# contributes at each input. The usual router scores input $x$ for expert $i$ by a linear
# function $\beta_{1i}^\top x + \beta_{0i}$. Large sparse MoE language models found that this lets
# the keys $\beta_{1i}$ grow without bound and the experts collapse onto a few directions, and the
# *cosine router* {cite:p}`chi2022representation` normalises both vectors:
# $\beta_{1i}^\top x / (\lVert\beta_{1i}\rVert \lVert x\rVert)$. Practitioners then add a small
# constant to the norms to keep the division stable.
#
# {cite:t}`nguyen2025perturbing` ask what this does to *estimation*. If the data really come from
# an MoE, how many samples does least squares need to recover its experts and its router? Their
# answer has two halves. With the plain cosine router, an identity among the router's
# derivatives makes the parameter rates slower than any power of $n$, even though the fitted
# regression function is as good as ever. With the perturbed router the identity is gone and the
# rates are polynomial again. This chapter derives the identity, shows where it comes from and
# measures both halves on simulated data.
#
# ## The setting and the theorem
#
# ```{prf:definition} Mixture of experts with a cosine router
# :label: pcr-def-moe
#
# Inputs $x \in \mathbb R^d$ are drawn from a distribution $\mu$, and labels are
# $y = f_{G_*}(x) + \varepsilon$ with Gaussian noise $\varepsilon \sim \mathcal N(0, \sigma^2)$.
# A mixture with $k$ experts has atoms $(\beta_{1i}, \beta_{0i}, \eta_i)$, $i = 1, \dots, k$,
# collected in the mixing measure $G = \sum_i \exp(\beta_{0i})\, \delta_{(\beta_{1i}, \eta_i)}$,
# and regression function
#
# $$
# \begin{aligned}
# f_G(x) &= \sum_{i=1}^k \frac{\exp z_i(x)}{\sum_{l} \exp z_l(x)}\; h(x, \eta_i), \\
# z_i(x) &= \kappa\, \frac{\beta_{1i}^\top x}{(\lVert\beta_{1i}\rVert + \tau_1)
# (\lVert x\rVert + \tau_2)} + \beta_{0i} .
# \end{aligned}
# $$ (eq-pcr-model)
#
# With $\tau_1 = \tau_2 = 0$ this is the **cosine router**; with $\tau_1, \tau_2 > 0$ it is the
# **perturbed cosine router**. The **linear router** uses $z_i(x) = \beta_{1i}^\top x + \beta_{0i}$.
# The inverse temperature $\kappa > 0$ is a known constant (the practical routers use one too).
# Our experts are GELU units, $h(x, \eta) = \mathrm{GELU}(a^\top x + b)$ with $\eta = (a, b)$.
# The true mixture $G_*$ has $k_*$ atoms; the **least-squares estimator** $\hat G_n$ minimises
# $\sum_{t=1}^n (y_t - f_G(x_t))^2$ over mixtures with $k \ge k_*$ atoms (*exact-specified* if
# $k = k_*$, *over-specified* if $k > k_*$).
# ```
#
# Parameters are compared by a *Voronoi loss*, which matches each fitted atom to its nearest
# true atom and adds up the discrepancies cell by cell.
#
# ```{prf:definition} Voronoi loss
# :label: pcr-def-voronoi
#
# Let $\omega_i = (\beta_{1i}, \eta_i)$. The Voronoi cell of true atom $j$ is
# $\mathcal V_j = \{ i : \lVert\omega_i - \omega_j^*\rVert \le \lVert\omega_i - \omega_l^*\rVert
# \ \forall l \}$. The loss is
#
# $$
# \begin{aligned}
# \mathcal D(G, G_*) = {} & \sum_{j=1}^{k_*} \Bigl| \sum_{i \in \mathcal V_j} e^{\beta_{0i}}
# - e^{\beta_{0j}^*} \Bigr|
# + \sum_{j : |\mathcal V_j| = 1} \sum_{i \in \mathcal V_j} e^{\beta_{0i}}
# \lVert\omega_i - \omega_j^*\rVert \\
# & + \sum_{j : |\mathcal V_j| > 1} \sum_{i \in \mathcal V_j} e^{\beta_{0i}}
# \lVert\omega_i - \omega_j^*\rVert^2 .
# \end{aligned}
# $$ (eq-pcr-voronoi)
#
# A true atom fitted by one atom (exact) enters linearly, a true atom fitted by several
# (over-specified) enters squared: $\mathcal D \lesssim n^{-1/2}$ then means exact atoms are
# recovered at $n^{-1/2}$ and split atoms at $n^{-1/4}$.
# ```
#
# Both routers fit the regression function itself at the parametric rate: it is a bounded,
# smooth least-squares problem of fixed dimension.
#
# ```{prf:theorem} Regression rate (Nguyen et al., 2025)
# :label: pcr-thm-regression
#
# For either cosine router, $\lVert f_{\hat G_n} - f_{G_*}\rVert_{L^2(\mu)} =
# O_P\bigl(\sqrt{\log n / n}\bigr)$.
# ```
#
# The difference lies in the parameters. The cosine score is homogeneous of degree zero in the
# key: $\beta_{1i} \mapsto c\,\beta_{1i}$ with $c > 0$ leaves $z_i$ unchanged. Euler's theorem for
# homogeneous functions turns this into a partial differential equation.
#
# ```{prf:proposition} The cosine router's PDE (our derivation)
# :label: pcr-prop-pde
#
# Let $u_i(x) = \exp(z_i(x))\, h(x, \eta_i)$. For the cosine router ($\tau_1 = 0$), at every
# $x \ne 0$ and every parameter,
#
# $$
# \beta_{1i}^\top \frac{\partial u_i}{\partial \beta_{1i}}(x) = 0 ,
# $$ (eq-pcr-pde)
#
# and the same holds for $f_G$. For the perturbed router,
# $\beta_{1i}^\top \partial z_i / \partial \beta_{1i} = \kappa\, \tau_1\, \beta_{1i}^\top x /
# \bigl((\lVert\beta_{1i}\rVert + \tau_1)^2 (\lVert x\rVert + \tau_2)\bigr)$, which is not
# identically zero when $\tau_1 > 0$.
# ```
#
# ```{prf:proof}
# Differentiate $z_i(c\,\beta_{1i}) = z_i(\beta_{1i})$ in $c$ at $c = 1$ to get
# $\beta_{1i}^\top \nabla_{\beta_{1i}} z_i = 0$, and $u_i$, $f_G$ depend on $\beta_{1i}$ only
# through $z_i$. For the perturbed router,
# $\nabla_{\beta} \bigl(\beta/(\lVert\beta\rVert + \tau_1)\bigr)^\top x =
# \bigl(x - (\beta^\top x)\beta/(\lVert\beta\rVert(\lVert\beta\rVert + \tau_1))\bigr)
# /(\lVert\beta\rVert + \tau_1)$; contracting with $\beta$ gives the formula.
# ```
#
# Every convergence proof for these estimators expands $f_{\hat G_n} - f_{G_*}$ in a Taylor series
# around each true atom and needs the derivatives that appear to be linearly independent
# functions of $x$. {eq}`eq-pcr-pde` is a linear relation among the first derivatives, and
# differentiating it again gives relations at every order, so the expansion never closes. The
# paper turns this into a minimax lower bound and the following rate; we state it in words, as
# the paper's exact constants were not available to us.
#
# ```{prf:theorem} Cosine versus perturbed cosine router (Nguyen et al., 2025)
# :label: pcr-thm-rates
#
# *Cosine router.* Whatever the experts, the parameter and expert estimation rates of least
# squares can be as slow as $O_P(1/\log^{\tau} n)$ for some $\tau > 0$.
#
# *Perturbed cosine router.* If the experts are *strongly identifiable* (the expert function and
# its derivatives in $\eta$ up to second order, multiplied by the router's derivatives, are
# linearly independent, as for GELU or ReLU experts and not for linear ones), then
# $\mathcal D(\hat G_n, G_*) = O_P\bigl(\sqrt{\log n / n}\bigr)$: parameters of exactly fitted
# atoms converge at $(\log n/n)^{1/2}$ and those of over-fitted atoms at $(\log n/n)^{1/4}$.
# ```
#
# On a finite sample a slower-than-polynomial rate is a *flat* line on log-log axes: a
# $1/\log^{\tau} n$ curve has local slope $-\tau/\ln n$, about $-0.1\,\tau$ at $n = 10^4$. What
# {eq}`eq-pcr-pde` predicts concretely is sharper: along the direction $\beta_{1i}$ itself the
# data carry *no* information, so the radial part of the key is never corrected, while its
# direction is an ordinary parameter.
#
# ```{note} Where this chapter departs from the paper
# * The paper's text was not available to us beyond its abstract and summaries; the model
#   {eq}`eq-pcr-model`, the loss {eq}`eq-pcr-voronoi` and the PDE {eq}`eq-pcr-pde` are our
#   reconstruction, in the form this group of authors uses for softmax-gated MoE.
# * Softmax is unchanged if the same vector is added to every router score. For the linear
#   router this is the familiar shift of all keys by a common vector; for the perturbed router
#   the scores are linear in $g(\beta_1) = \beta_1/(\lVert\beta_1\rVert + \tau_1)$, so shifting all
#   $g(\beta_{1i})$ by a common vector changes nothing either. We remove this by **fixing the
#   router of expert 1** (its key and bias) at its true value in every fit, for all three
#   routers; without this the perturbed router is not identifiable and no loss can converge.
# * The paper's $\tau_1, \tau_2$, experts, sample grid and optimiser were not available. We use
#   $\tau_1 = \tau_2 = 0.5$, a known inverse temperature $\kappa = 4$, noise $\sigma = 0.05$, and
#   fit by Levenberg–Marquardt from the truth plus noise (the best of three starts for
#   exactly specified fits, one start with more iterations for over-specified ones). Each choice is
#   explained in {ref}`pcr-choices`.
# ```
#
# ## The algorithm
#
# The mixture, its Jacobian with respect to every parameter, and the router. One function
# serves all three routers; the cosine router is the perturbed one with $\tau_1 = \tau_2 = 0$.
# Fits are batched: `theta` has shape (fits, $k$, $2d + 2$), one row per atom holding
# $(\beta_1, \beta_0, a, b)$.

# %% tags=["parameters"]
seed = 0
control = "none"  # or a deliberately wrong variant named in controls.yaml
device = "cpu"  # numpy only; the device just has to be valid
progress = False
sample_sizes = [500, 1000, 2000, 4000, 8000, 16000, 32000]  # n, exact-specified fits
replicates = 10  # independent data sets per router and n
restarts = 3  # starts per fit; the lowest training loss is kept
over_sample_sizes = [500, 1000, 2000, 4000, 8000]  # n, over-specified fits (k 3)
over_replicates = 6  # data sets per router and n in the over-specified fits
over_restarts = 1  # starts per over-specified fit
over_iterations = 3000  # Levenberg-Marquardt iterations per over-specified fit
noise_sd = 0.05  # sigma, sd of the label noise
tau = 0.5  # tau_1 and tau_2 of the perturbed router
inverse_temperature = 4.0  # kappa, router sharpness (both cosine routers)
expert_scale = 3.0  # multiplies the true experts' weights a and biases b
init_sd = 0.3  # sd of the jitter added to the truth at each start
max_iterations = 300  # Levenberg-Marquardt iterations per exact-specified fit
test_size = 20000  # held-out inputs for the regression error

# %% tags=["hide-input"]
try:
    import lib
except ModuleNotFoundError:
    raise SystemExit(
        "This chapter needs the book's `lib` package. Run it from a clone of the "
        "book's repository after `make install` (see its README), or "
        "`pip install -r requirements.txt` and `pip install -e .` in that clone."
    ) from None

import time

import numpy as np
from scipy.special import erf

lib.check_choice("device", device, ["cpu", "auto"])
lib.check_bool("progress", progress)
lib.check_int_list("sample_sizes", sample_sizes, low=100, min_len=3, increasing=True)
lib.check_int("replicates", replicates, low=3)
lib.check_int("restarts", restarts, low=1)
lib.check_int_list(
    "over_sample_sizes", over_sample_sizes, low=100, min_len=3, increasing=True
)
lib.check_int("over_replicates", over_replicates, low=3)
lib.check_int("over_restarts", over_restarts, low=1)
lib.check_float("noise_sd", noise_sd, low=0.0, low_open=True, high=10.0)
lib.check_float("tau", tau, low=0.0, low_open=True, high=100.0)
lib.check_float(
    "inverse_temperature", inverse_temperature, low=0.0, low_open=True, high=100.0
)
lib.check_float("expert_scale", expert_scale, low=0.0, low_open=True, high=100.0)
lib.check_float("init_sd", init_sd, low=0.0, high=10.0)
lib.check_int("max_iterations", max_iterations, low=1, high=100000)
lib.check_int("over_iterations", over_iterations, low=1, high=100000)
lib.check_int("test_size", test_size, low=1000, high=1000000)
fits_exact = replicates * restarts
fits_over = over_replicates * over_restarts
jacobian_bytes = (
    8 * 3 * 18 * max(fits_exact * sample_sizes[-1], fits_over * over_sample_sizes[-1])
)
if jacobian_bytes > 8e9:
    raise ValueError(
        f"replicates x restarts x largest n needs {jacobian_bytes / 1e9:.0f} GB of "
        "Jacobians (limit 8 GB): lower replicates, restarts or the largest sample size"
    )
control = lib.check_control("perturbed-cosine-router-moe", control)
rng, device = lib.setup(seed, device)

# %% [markdown]
# Every router score is $z_i = s_i\, \beta_{1i}^\top \tilde x + \beta_{0i}$ with a scalar
# $s_i$ and a transformed input $\tilde x$: for the cosine routers
# $s_i = \kappa/(\lVert\beta_{1i}\rVert + \tau_1)$ and $\tilde x = x/(\lVert x\rVert + \tau_2)$,
# for the linear router $s_i = 1$ and $\tilde x = x$. With gate weights
# $p_i = \operatorname{softmax}(z)_i$ and expert outputs $e_i = h(x, \eta_i)$, the chain rule gives
# $\partial f/\partial z_i = p_i (e_i - f)$, and
#
# $$
# \frac{\partial z_i}{\partial \beta_{1i}} = s_i \Bigl(\tilde x - \frac{\beta_{1i}^\top \tilde x}
# {\lVert\beta_{1i}\rVert (\lVert\beta_{1i}\rVert + \tau_1)}\, \beta_{1i}\Bigr), \qquad
# \frac{\partial f}{\partial a_i} = p_i\, h'(a_i^\top x + b_i)\, x .
# $$ (eq-pcr-jacobian)
#
# The bracket is what makes {eq}`eq-pcr-pde` visible in code: with $\tau_1 = 0$ it is the
# projection of $\tilde x$ orthogonal to $\beta_{1i}$.

# %%
SQRT2 = np.sqrt(2.0)
SQRT2PI = np.sqrt(2.0 * np.pi)


def gelu(t):
    """GELU(t) = t Phi(t) and its derivative."""
    Phi = 0.5 * (1.0 + erf(t / SQRT2))
    return t * Phi, Phi + t * np.exp(-0.5 * t * t) / SQRT2PI


def relu(t):
    """ReLU and its derivative: the true experts under the control relu-truth."""
    return np.maximum(t, 0.0), (t > 0).astype(float)


# control unnormalised-key: the cosine router's score keeps the key's norm
KEY_NORMALISED = {"cosine": control != "unnormalised-key", "perturbed": True}


def router_scores(beta1, X, router, tau1, tau2, kappa):
    """s_i and x-tilde with z_i = s_i beta1_i . x-tilde + beta0_i."""
    if router == "linear":
        return np.ones(beta1.shape[:-1]), X
    x_tilde = X / (np.linalg.norm(X, axis=-1) + tau2)[:, None]
    if not KEY_NORMALISED[router]:
        return np.full(beta1.shape[:-1], kappa), x_tilde
    return kappa / (np.linalg.norm(beta1, axis=-1) + tau1), x_tilde


def moe(theta, X, router, tau1, tau2, kappa, jacobian=False, expert=gelu):
    """f_G on inputs X (n, d) for a batch of mixtures theta (fits, k, 2d + 2)."""
    fits, k, width = theta.shape
    d = X.shape[1]
    beta1, beta0 = theta[..., :d], theta[..., d]
    a, b = theta[..., d + 1 : 2 * d + 1], theta[..., 2 * d + 1]
    s, x_tilde = router_scores(beta1, X, router, tau1, tau2, kappa)
    proj = beta1 @ x_tilde.T
    z = s[..., None] * proj + beta0[..., None]
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    e, de = expert(a @ X.T + b[..., None])
    f = (p * e).sum(1)
    if not jacobian:
        return f
    dz = p * (e - f[:, None, :])
    J = np.empty((fits, k, width, X.shape[0]))
    if router == "linear" or not KEY_NORMALISED[router]:
        radial = np.zeros_like(beta1)
    elif control == "wrong-jacobian":  # drops the derivative of the key's norm
        radial = np.zeros_like(beta1)
    else:
        norm = np.linalg.norm(beta1, axis=-1)
        radial = beta1 / (norm * (norm + tau1))[..., None]
    for j in range(d):
        J[:, :, j] = dz * s[..., None] * (x_tilde[:, j] - proj * radial[..., j, None])
        J[:, :, d + 1 + j] = p * de * X[:, j]
    J[:, :, d] = dz
    J[:, :, 2 * d + 1] = p * de
    return f, J.reshape(fits, k * width, -1)


# %% [markdown]
# Least squares is solved by Levenberg–Marquardt, batched over fits: each step solves
# $(J^\top J + \lambda\, \mathrm{diag}\, J^\top J)\,\delta = J^\top r$ on the free parameters,
# keeps the step if the loss falls (and divides $\lambda$ by 3, down to $10^{-6}$) or rejects
# it (and multiplies $\lambda$ by 4). The floor matters for the cosine router: along the flat
# direction of {eq}`eq-pcr-pde` the undamped system is singular, and without damping a step
# there would be set by rounding noise. A fit stops when an accepted step lowers the loss by
# less than a relative $10^{-10}$, or at `max_iterations`. Near a minimum this converges
# quadratically, so unlike a fixed budget of gradient steps it leaves no optimisation error in
# the exact-specified fits.
#
# The theory assumes a compact parameter set, and so do we: after each step the keys are
# shrunk to norm at most three times the largest true key, the biases clipped to $[-3, 3]$ and
# the expert weights to three times the largest true one (`project`). The bounds are inactive in
# exact-specified fits, which stay near the truth. In over-specified fits they matter: without
# them the superfluous atom, which carries little weight, can drift to ever larger keys (for
# the perturbed router its normalised key $g(\beta_1)$ then approaches the unit sphere) and
# take the Voronoi loss with it, a feature of the unbounded parametrisation, not of the
# estimator the theorem is about.

# %%
def parameter_box(truth):
    """Bounds (key norm, |bias|, |expert weight|): three times the truth's, bias 3."""
    return (
        3 * np.linalg.norm(truth[:, :d], axis=1).max(),
        3.0,
        3 * np.abs(truth[:, d + 1 :]).max(),
    )


def project(theta, box):
    key_max, bias_max, expert_max = box
    out = theta.copy()
    norm = np.linalg.norm(out[..., :d], axis=-1, keepdims=True)
    out[..., :d] *= np.minimum(1.0, key_max / np.maximum(norm, 1e-300))
    out[..., d] = np.clip(out[..., d], -bias_max, bias_max)
    out[..., d + 1 :] = np.clip(out[..., d + 1 :], -expert_max, expert_max)
    return out


def fit_least_squares(theta0, X, Y, router, tau1, tau2, kappa, free, box, iterations):
    """Levenberg-Marquardt on the free entries of theta; returns theta, loss, steps."""
    theta = theta0.copy()
    fits, k, width = theta.shape
    idx = np.flatnonzero(free)
    eye = np.eye(idx.size)
    lam = np.full(fits, 1e-3)
    f, J = moe(theta, X, router, tau1, tau2, kappa, jacobian=True)
    r = Y - f
    loss = (r * r).mean(-1)
    active = np.ones(fits, bool)
    steps = np.zeros(fits, int)
    for _ in range(iterations):
        live = np.flatnonzero(active)
        Jf = J[live][:, idx]
        A = Jf @ Jf.transpose(0, 2, 1)
        g = (Jf @ r[live][..., None])[..., 0]
        damp = (
            lam[live, None, None] * eye * (np.einsum("bpp->bp", A)[:, :, None] + 1e-12)
        )
        trial = theta[live].reshape(live.size, -1).copy()
        trial[:, idx] += np.linalg.solve(A + damp, g[..., None])[..., 0]
        trial = project(trial.reshape(live.size, k, width), box)
        f_new, J_new = moe(trial, X, router, tau1, tau2, kappa, jacobian=True)
        r_new = Y[live] - f_new
        loss_new = (r_new * r_new).mean(-1)
        better = loss_new < loss[live]
        gain = np.where(better, (loss[live] - loss_new) / loss[live], 0.0)
        keep = live[better]
        theta[keep], J[keep], r[keep] = trial[better], J_new[better], r_new[better]
        loss[keep] = loss_new[better]
        lam[live] = np.where(better, np.maximum(lam[live] / 3, 1e-6), lam[live] * 4)
        steps[live] += 1
        active[live[(better & (gain < 1e-10)) | (lam[live] > 1e10)]] = False
        if not active.any():
            break
    return theta, loss, steps


# %% [markdown]
# The true mixture has $k_* = 2$ GELU experts in $d = 2$, inputs uniform on $[-1, 1]^2$. The
# router keys have unit norm, so $\tau_1 = 0.5$ sits where the perturbed score is most sensitive
# to the norm. The linear router's true keys are chosen so its scores match the perturbed
# router's on the unit circle.

# %%
d, k_star = 2, 2
theta_star = np.array(
    [
        [1.0, 0.0, 0.0, 1.0, -1.0, 0.5],  # expert 1: beta1, beta0, a, b
        [-0.6, 0.8, 0.3, -1.5, 1.0, -0.5],  # expert 2
    ]
)
theta_star[:, d + 1 :] *= expert_scale
g_star = theta_star[:, :d] / (np.linalg.norm(theta_star[:, :d], axis=1) + tau)[:, None]
theta_star_linear = theta_star.copy()
theta_star_linear[:, :d] = inverse_temperature * (g_star - g_star[0]) / (1.0 + tau)
tau_fit = 0.0 if control == "tau-zero" else tau  # control: no perturbation at all
ROUTERS = {  # name: (tau1, tau2, kappa, true mixture)
    "cosine": (0.0, 0.0, inverse_temperature, theta_star),
    "perturbed": (tau_fit, tau_fit, inverse_temperature, theta_star),
    "linear": (0.0, 0.0, 1.0, theta_star_linear),
}
# control relu-truth: the data come from ReLU experts, the fits use GELU experts
EXPERT_TRUE = relu if control == "relu-truth" else gelu
X_test = rng.uniform(-1.0, 1.0, (test_size, d))

# %% [markdown]
# ### Checking the derivatives and the PDE
#
# Two implementation checks. The analytic Jacobian {eq}`eq-pcr-jacobian` must match central
# finite differences of the model. And the PDE {eq}`eq-pcr-pde` is checked on the model itself,
# not on the Jacobian (where it holds by algebra): scaling expert $i$'s key by $1 \pm h$ and
# differencing $f$ gives $\beta_{1i}^\top \partial f / \partial \beta_{1i}$ without any
# derivative formula. It must vanish for the cosine router ({prf:ref}`pcr-prop-pde`), not for the
# perturbed one, and agree with the analytic Jacobian contracted with $\beta_{1i}$. The controls
# `wrong-jacobian` (the Jacobian without the derivative of the key's norm) and
# `unnormalised-key` (a "cosine" router whose score keeps the key's norm) make these checks fail.

# %%
theta_probe = theta_star[None] + 0.3 * rng.standard_normal((1, k_star, 2 * d + 2))
X_probe = rng.uniform(-1.0, 1.0, (200, d))


def jacobian_error(router, fd_router=None):
    """Worst |analytic - finite difference| / max |analytic| over all entries."""
    tau1, tau2, kappa, _ = ROUTERS[router]
    ft1, ft2, fk, _ = ROUTERS[fd_router or router]
    _, J = moe(theta_probe, X_probe, router, tau1, tau2, kappa, jacobian=True)
    worst, h = 0.0, 1e-6
    for q in range(J.shape[1]):
        step = np.zeros(theta_probe.size)
        step[q] = h
        step = step.reshape(theta_probe.shape)
        up = moe(theta_probe + step, X_probe, fd_router or router, ft1, ft2, fk)
        down = moe(theta_probe - step, X_probe, fd_router or router, ft1, ft2, fk)
        worst = max(worst, np.abs((up - down) / (2 * h) - J[:, q]).max())
    return worst / np.abs(J).max()


def radial_derivative(router, h=1e-5):
    """beta1_i . df/dbeta1_i by scaling key i by 1 +- h (central differences) and
    from the analytic Jacobian; both relative to max |df/dbeta1| (finite
    differences)."""
    tau1, tau2, kappa, _ = ROUTERS[router]
    _, J = moe(theta_probe, X_probe, router, tau1, tau2, kappa, jacobian=True)
    J = J.reshape(k_star, 2 * d + 2, -1)[:, :d]
    analytic = np.einsum("kd,kdn->kn", theta_probe[0, :, :d], J)
    numeric, scale = np.empty_like(analytic), 0.0
    for i in range(k_star):
        up, down = theta_probe.copy(), theta_probe.copy()
        up[0, i, :d] *= 1 + h
        down[0, i, :d] *= 1 - h
        f_up = moe(up, X_probe, router, tau1, tau2, kappa)[0]
        f_down = moe(down, X_probe, router, tau1, tau2, kappa)[0]
        numeric[i] = (f_up - f_down) / (2 * h)
        for j in range(d):
            step = np.zeros_like(theta_probe)
            step[0, i, j] = h
            diff = moe(theta_probe + step, X_probe, router, tau1, tau2, kappa)[0]
            diff -= moe(theta_probe - step, X_probe, router, tau1, tau2, kappa)[0]
            scale = max(scale, np.abs(diff).max() / (2 * h))
    mismatch = np.abs(analytic - numeric).max() / scale
    return np.abs(numeric).max() / scale, mismatch


def bound(value, limit):
    return f"< {limit:.0e}" if value < limit else f"{value:.1e}"


jac_err = max(jacobian_error(r) for r in ROUTERS)
pde_cosine, pde_cosine_jac = radial_derivative("cosine")
pde_perturbed, pde_perturbed_jac = radial_derivative("perturbed")
pde_jac = max(pde_cosine_jac, pde_perturbed_jac)
print(f"Jacobian vs finite differences, worst relative error: {bound(jac_err, 1e-6)}")
print("beta1 . df/dbeta1 by finite differences / max |df/dbeta1|:")
print(f"  cosine router    {bound(pde_cosine, 1e-8)}")
print(f"  perturbed router {pde_perturbed:.2f}")
print(f"  analytic Jacobian against it, worst relative error: {bound(pde_jac, 1e-6)}")

# %% [markdown]
# (pcr-choices)=
# ### Choosing a setting in which the rates can be seen
#
# A rate is visible on a log-log plot only once the estimator is in its asymptotic regime at
# the smallest $n$ of the grid. The asymptotic error of the free parameters is
# $\sigma \sqrt{\operatorname{tr} I^{-1} / n}$, where $I = \mathbb E[\nabla f \nabla f^\top]$ is
# the Fisher information per unit noise, so we chose the router settings by computing
# $\sqrt{\operatorname{tr} I^{-1}}$ at the truth. A weak router (small $\kappa$, or large $\tau$,
# which flattens the scores towards zero) and a small $\tau_1$ (which makes the score almost
# blind to the norm, as in the cosine router) both inflate it. The table shows the candidates
# we compared; the defaults are the row marked `*`. For the cosine router $I$ is singular, as
# {eq}`eq-pcr-pde` says it must be: its smallest eigenvalue is zero.

# %% tags=["hide-input"]
X_fisher = rng.uniform(-1.0, 1.0, (20000, d))
FREE_EXACT = np.ones((k_star, 2 * d + 2), bool)
FREE_EXACT[0, : d + 1] = False  # expert 1's router is fixed (softmax shift)


def fisher(tau1, tau2, kappa, truth=theta_star):
    router = "cosine" if tau1 == 0 else "perturbed"
    _, J = moe(truth[None], X_fisher, router, tau1, tau2, kappa, jacobian=True)
    J = J[0][FREE_EXACT.ravel()]
    info = J @ J.T / X_fisher.shape[0]
    eig = np.linalg.eigvalsh(info)
    se = np.sqrt(np.trace(np.linalg.inv(info))) if eig[0] > 1e-10 else np.inf
    return eig[0], se


print("router      tau   kappa   smallest eigenvalue of I   sqrt(tr I^-1)")
for t, kap in [(0.0, 4.0), (0.1, 4.0), (0.5, 1.0), (0.5, 4.0), (1.0, 4.0), (1.0, 8.0)]:
    eig0, se = fisher(t, t, kap)
    mark = "*" if (t, kap) == (tau, inverse_temperature) else " "
    name = "cosine" if t == 0 else "perturbed"
    shown = "< 1e-10" if eig0 < 1e-10 else f"{eig0:.1e}"
    print(f"{name:9s} {t:5.1f} {kap:6.1f}   {shown:>24s}   {se:10.0f} {mark}")
se_default = fisher(tau, tau, inverse_temperature)[1]
error_smallest = noise_sd * se_default / np.sqrt(sample_sizes[0])


# %% [markdown]
# With $\sigma = 0.05$ the default's $\sqrt{\operatorname{tr} I^{-1}}$ of {glue:}`pcr_se`
# puts the parameter error near $\sigma \sqrt{\operatorname{tr} I^{-1}/n} =$
# {glue:}`pcr_error_smallest` at the smallest $n$, small enough
# for the linearisation behind the $n^{-1/2}$ rate. Higher noise only shifts the whole grid
# towards smaller effective $n$ ($n/\sigma^2$ is what matters), which the `Try it` section
# explores. Every fit starts from the truth plus Gaussian jitter of sd `init_sd` on the free
# parameters (best of `restarts` starts by training loss; starts that reach the same loss to a
# relative $10^{-8}$ are ties, and we keep the first, so that rounding noise never decides). Starting near the truth is standard
# in this literature's simulations and isolates the statistical rate from the global
# optimisation problem, which is not what the theorem is about.
#
# ## The experiment
#
# For each router and each $n$ we draw `replicates` independent data sets from that router's own
# true mixture, fit each by least squares from `restarts` starts, keep the best, and record the
# regression error $\lVert f_{\hat G} - f_{G_*}\rVert_{L^2}$ on held-out inputs, the Voronoi
# loss {eq}`eq-pcr-voronoi`, and the error in the norm of expert 2's key. For the cosine router we
# also record the Voronoi loss of the *directions*, with every key replaced by
# $\beta_1/\lVert\beta_1\rVert$: the part of the parameter that the data determine.

# %%
def voronoi_loss(theta, truth):
    """D(G, G_*) of eq-pcr-voronoi for a batch of fitted mixtures (fits, k, 2d + 2)."""
    omega = np.concatenate([theta[..., :d], theta[..., d + 1 :]], -1)
    omega_star = np.concatenate([truth[:, :d], truth[:, d + 1 :]], -1)
    dist = np.linalg.norm(omega[:, :, None] - omega_star[None, None], axis=-1)
    cell = dist.argmin(-1)
    weight = np.exp(theta[..., d])
    loss = np.zeros(theta.shape[0])
    for j in range(truth.shape[0]):
        inside = cell == j
        count = inside.sum(1)
        dj = np.where(inside, dist[..., j], 0.0)
        loss += np.abs((weight * inside).sum(1) - np.exp(truth[j, d]))
        linear, squared = (weight * dj).sum(1), (weight * dj**2).sum(1)
        loss += np.where(count == 1, linear, squared)
    return loss


def directions(theta):
    out = theta.copy()
    out[..., :d] /= np.linalg.norm(out[..., :d], axis=-1, keepdims=True)
    return out


def start_points(truth, k, count):
    """Truth (expert 2 split in two if k = 3) plus jitter on the free entries."""
    base = truth.copy()
    if k > k_star:
        base = np.concatenate([base, base[1:2]], 0)
        base[1:, d] -= np.log(2.0)
    free = np.ones((k, 2 * d + 2), bool)
    free[0, : d + 1] = False
    jitter = init_sd * rng.standard_normal((count, k, 2 * d + 2)) * free
    return base[None] + jitter, free.ravel()


def run_router(router, k, ns, reps, starts, iterations, desc):
    tau1, tau2, kappa, truth = ROUTERS[router]
    true_model = (router, *ROUTERS[router][:3])
    f_test = moe(truth[None], X_test, *true_model, expert=EXPERT_TRUE)[0]
    keys = ["l2", "D", "D_dir", "radial_start", "radial_fit", "steps"]
    out = {key: np.zeros((len(ns), reps)) for key in keys}
    for row, n in enumerate(lib.progress(ns, enabled=progress, desc=desc)):
        X = rng.uniform(-1.0, 1.0, (n, d))
        f_true = moe(truth[None], X, *true_model, expert=EXPERT_TRUE)[0]
        Y = f_true + noise_sd * rng.standard_normal((reps, n))
        theta0, free = start_points(truth, k, reps * starts)
        theta, loss, steps = fit_least_squares(
            theta0,
            X,
            np.repeat(Y, starts, 0),
            router,
            tau1,
            tau2,
            kappa,
            free,
            parameter_box(truth),
            iterations,
        )
        loss = loss.reshape(reps, starts)
        tie = loss <= loss.min(1, keepdims=True) * (1 + 1e-8)
        best = tie.argmax(1) + starts * np.arange(reps)  # first of the tied best
        fit, start = theta[best], theta0[best]
        f_hat = moe(fit, X_test, router, tau1, tau2, kappa)
        out["l2"][row] = np.sqrt(((f_hat - f_test) ** 2).mean(-1))
        out["D"][row] = voronoi_loss(fit, truth)
        if router != "linear":
            out["D_dir"][row] = voronoi_loss(directions(fit), directions(truth))
        norm_star = np.linalg.norm(truth[1, :d])
        out["radial_start"][row] = np.abs(
            np.linalg.norm(start[:, 1, :d], axis=-1) - norm_star
        )
        out["radial_fit"][row] = np.abs(
            np.linalg.norm(fit[:, 1, :d], axis=-1) - norm_star
        )
        out["steps"][row] = steps[best]
    return out


t0 = time.perf_counter()
exact = {
    router: run_router(
        router, k_star, sample_sizes, replicates, restarts, max_iterations, router
    )
    for router in ROUTERS
}
t_exact = time.perf_counter() - t0
print(f"exact-specified fits: {t_exact:.1f} s wall-clock")


# %% [markdown]
# We summarise each curve by the least-squares slope of $\log(\text{median over replicates})$
# against $\log n$, and its spread by resampling the replicates (200 bootstrap draws).

# %%
def slope(ns, values, draws=200):
    """Slope of log median vs log n, and its bootstrap sd over replicates."""
    x = np.log(np.asarray(ns, float))
    fit = np.polyfit(x, np.log(np.median(values, 1)), 1)[0]
    pick = rng.integers(0, values.shape[1], (draws, values.shape[1]))
    boot = np.log(np.median(values[:, pick], -1))  # (n, draws)
    return fit, np.polyfit(x, boot, 1)[0].std()


summary = {}
print(
    "router      metric        slope (bootstrap sd)   median at n =", sample_sizes[-1]
)
for router, res in exact.items():
    for metric in ["l2", "D", "D_dir"]:
        if metric == "D_dir" and router == "linear":
            continue
        b, sd = slope(sample_sizes, res[metric])
        summary[router, metric] = b, sd
        last = np.median(res[metric][-1])
        print(f"{router:10s}  {metric:6s}  {b:8.2f} ({sd:.2f})   {last:21.4f}")
steps_max = max(int(res["steps"].max()) for res in exact.values())
converged = steps_max < max_iterations
print(f"every fit stopped before the {max_iterations}-step cap: {converged}")

# %% [markdown]
# ### The regression function: the same rate for every router

# %% mystnb={"figure": {"caption": "Regression error of the least-squares fit against the sample size, median over replicates (bands, interquartile range). All three routers follow the $n^{-1/2}$ guide (dotted) of {prf:ref}`pcr-thm-regression`.", "name": "fig-pcr-regression"}} tags=["hide-input"]
COLORS = {
    "cosine": lib.PALETTE[0],
    "perturbed": lib.PALETTE[1],
    "linear": lib.PALETTE[2],
}
LABELS = {
    "cosine": "cosine",
    "perturbed": f"perturbed ($\\tau$ = {tau})",
    "linear": "linear",
}
fig, ax = lib.subplots(width=6.4, height=4.2)
ns = np.asarray(sample_sizes, float)
for router, res in exact.items():
    q1, med, q3 = np.percentile(res["l2"], [25, 50, 75], axis=1)
    b = summary[router, "l2"][0]
    ax.plot(
        ns, med, "o-", color=COLORS[router], label=f"{LABELS[router]}: slope {b:.2f}"
    )
    ax.fill_between(ns, q1, q3, color=COLORS[router], alpha=0.15)
guide = np.median(exact["perturbed"]["l2"][0]) * (ns / ns[0]) ** -0.5
ax.plot(ns, guide, ":", color="0.3", label="$n^{-1/2}$")
ax.set(xscale="log", yscale="log", xlabel="sample size $n$")
ax.set(ylabel=r"$\|f_{\hat G} - f_{G_*}\|_{L^2}$")
ax.legend()
lib.show(fig)

# %% [markdown]
# {numref}`fig-pcr-regression` confirms {prf:ref}`pcr-thm-regression` for all three routers:
# whatever happens to the parameters, the fitted function converges at the parametric rate.
#
# ### The parameters: the cosine router stalls

# %% mystnb={"figure": {"caption": "Voronoi loss of the fitted parameters against the sample size (median over replicates). The perturbed and linear routers fall polynomially; the cosine router's loss does not fall, while the loss of its key *directions* (dashed) does.", "name": "fig-pcr-voronoi"}} tags=["hide-input"]
fig, ax = lib.subplots(width=6.4, height=4.2)
for router, res in exact.items():
    b = summary[router, "D"][0]
    ax.plot(
        ns,
        np.median(res["D"], 1),
        "o-",
        color=COLORS[router],
        label=f"{LABELS[router]}: slope {b:.2f}",
    )
b = summary["cosine", "D_dir"][0]
ax.plot(
    ns,
    np.median(exact["cosine"]["D_dir"], 1),
    "s--",
    color=COLORS["cosine"],
    label=f"cosine, directions only: slope {b:.2f}",
)
guide = np.median(exact["perturbed"]["D"][0]) * (ns / ns[0]) ** -0.5
ax.plot(ns, guide, ":", color="0.3", label="$n^{-1/2}$")
ax.set(xscale="log", yscale="log", xlabel="sample size $n$")
ax.set(ylabel=r"Voronoi loss $\mathcal{D}(\hat G_n, G_*)$")
ax.legend(fontsize=8)
lib.show(fig)

# %% [markdown]
# {numref}`fig-pcr-voronoi` is the paper's contrast. The perturbed router's loss falls at close
# to $n^{-1/2}$, the rate {prf:ref}`pcr-thm-rates` gives for exactly fitted atoms. The linear
# router, our reference, falls too. The cosine router's loss stays where it started: at the
# largest $n$ its median is {glue:}`pcr_cos_D_last`, a level set by the starting jitter
# (`init_sd`; the median error in expert 2's key norm at the start is {glue:}`pcr_radial_start`),
# not by $n$. Its direction-only loss falls like the others, so what is lost is exactly the norm
# of the key, the direction in which {eq}`eq-pcr-pde` says the data carry no information.
#
# {numref}`fig-pcr-radial` shows this directly. For every fit at the largest $n$ it plots the
# error in the norm of expert 2's key at the start against the error after fitting. The
# perturbed router corrects it. The cosine router's fits stay on or near the diagonal: the
# least-squares objective is flat along $\beta_1$ and its gradient orthogonal to $\beta_1$, so
# nothing pulls the norm back towards the truth. Where a fit moves off the diagonal, it is the
# optimiser's steps along the curved level set, not information from the data. The median
# fraction of the starting error that survives the fit is {glue:}`pcr_kept_cosine` for the cosine
# router and {glue:}`pcr_kept_perturbed` for the perturbed one.

# %% mystnb={"figure": {"caption": "Error in the norm of expert 2's router key, at the start of the fit against after it, for every replicate at the largest sample size. Points on the diagonal were not corrected at all.", "name": "fig-pcr-radial"}} tags=["hide-input"]
fig, ax = lib.subplots(width=5.2, height=4.2)
for router in ["cosine", "perturbed"]:
    res = exact[router]
    ax.plot(
        res["radial_start"][-1],
        res["radial_fit"][-1],
        "o",
        color=COLORS[router],
        label=LABELS[router],
    )
top = max(exact[r]["radial_start"][-1].max() for r in ["cosine", "perturbed"]) * 1.1
ax.plot([0, top], [0, top], ":", color="0.3", label="no correction")
ax.set(xlabel=r"$|\,\|\beta_{12}\| - \|\beta^*_{12}\|\,|$ at the start")
ax.set(ylabel=r"$|\,\|\hat\beta_{12}\| - \|\beta^*_{12}\|\,|$ after the fit")
ax.legend()
lib.show(fig)


# %% tags=["hide-input"]
def kept_fraction(router):
    """Median of radial error after / at the start, at the largest n."""
    start, fit = exact[router]["radial_start"][-1], exact[router]["radial_fit"][-1]
    moved = start > 0
    return np.median(fit[moved] / start[moved]) if moved.any() else np.nan


kept_cosine, kept_perturbed = kept_fraction("cosine"), kept_fraction("perturbed")
print(f"radial error kept by the fit (median after / start), n = {sample_sizes[-1]}:")
print(f"  cosine {kept_cosine:.2f}   perturbed {kept_perturbed:.2f}")

# %% [markdown]
# ### Over-specified fits
#
# The theorem's more delicate half concerns over-specified fits, where a true expert is fitted by
# two atoms and their parameters should converge at only $n^{-1/4}$ (the loss
# {eq}`eq-pcr-voronoi` squares them, so $\mathcal D$ should still fall at $n^{-1/2}$). We fit
# $k = 3$ atoms, starting with expert 2 split into two halves, for the two cosine routers. These
# fits are much harder: the least-squares surface is degenerate at the truth (the two halves can
# trade weight and position) and Levenberg–Marquardt loses its quadratic convergence there. We
# therefore spend the budget on fewer, longer fits: one start per data set and up to
# `over_iterations` steps, and we print the fraction of fits that still stop at that cap.

# %%
t0 = time.perf_counter()
over = {
    router: run_router(
        router,
        k_star + 1,
        over_sample_sizes,
        over_replicates,
        over_restarts,
        over_iterations,
        f"{router}, k = 3",
    )
    for router in ["cosine", "perturbed"]
}
t_over = time.perf_counter() - t0
print(f"over-specified fits: {t_over:.1f} s wall-clock")
over_summary, over_capped = {}, {}
print("router      slope of l2   slope of D (bootstrap sd)   fits at the cap")
for router, res in over.items():
    for metric in ["l2", "D", "D_dir"]:
        over_summary[router, metric] = slope(over_sample_sizes, res[metric])
    b_l2, (b_d, sd_d) = over_summary[router, "l2"][0], over_summary[router, "D"]
    over_capped[router] = (res["steps"] >= over_iterations).mean()
    print(
        f"{router:10s}  {b_l2:11.2f}   {b_d:10.2f} ({sd_d:.2f})"
        f"   {over_capped[router]:14.0%}"
    )
b_ov, sd_ov = over_summary["perturbed", "D"]
resolved = 3 * sd_ov <= 0.2
print(
    f"perturbed router's over-specified rate: slope {b_ov:.2f}, 3 bootstrap sd "
    f"{3 * sd_ov:.2f}: " + ("resolved" if resolved else "inconclusive (3 sd > 0.2)")
)

# %% mystnb={"figure": {"caption": "Over-specified fits ($k = 3$ atoms for $k_* = 2$ experts). Left, the regression error still follows $n^{-1/2}$; right, the Voronoi loss (median and interquartile range) for both cosine routers, with the $n^{-1/2}$ the theorem predicts for the perturbed router.", "name": "fig-pcr-over"}} tags=["hide-input"]
fig, (ax_l2, ax_d) = lib.subplots(1, 2, width=10, height=4)
no = np.asarray(over_sample_sizes, float)
for router, res in over.items():
    for ax, metric in [(ax_l2, "l2"), (ax_d, "D")]:
        q1, med, q3 = np.percentile(res[metric], [25, 50, 75], axis=1)
        ax.plot(no, med, "o-", color=COLORS[router], label=LABELS[router])
        ax.fill_between(no, q1, q3, color=COLORS[router], alpha=0.15)
for ax, metric in [(ax_l2, "l2"), (ax_d, "D")]:
    anchor = np.median(over["perturbed"][metric][-1])
    ax.plot(no, anchor * (no / no[-1]) ** -0.5, ":", color="0.3", label="$n^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel="sample size $n$")
    ax.set_xticks(no, [f"{v:.0f}" for v in no])
    ax.set_xticks([], minor=True)
    ax.legend()
ax_l2.set(ylabel=r"$\|f_{\hat G} - f_{G_*}\|_{L^2}$")
ax_d.set(ylabel=r"Voronoi loss $\mathcal{D}(\hat G_n, G_*)$")
lib.show(fig)

# %% tags=["remove-cell"]
from myst_nb import glue

glue("pcr_se", int(round(float(se_default))), display=False)
glue("pcr_error_smallest", round(float(error_smallest), 2), display=False)
sd_l2 = max(summary[r, "l2"][1] for r in ROUTERS)
sd_D = max(sd for (r, m), (b, sd) in summary.items() if m != "l2")
glue("pcr_sd_l2", round(float(sd_l2), 2), display=False)
glue("pcr_sd_D", round(float(sd_D), 2), display=False)
glue(
    "pcr_cos_D_last",
    round(float(np.median(exact["cosine"]["D"][-1])), 2),
    display=False,
)
radial_start = np.median(exact["cosine"]["radial_start"][-1])
glue("pcr_radial_start", round(float(radial_start), 2), display=False)
glue("pcr_kept_cosine", round(float(kept_cosine), 2), display=False)
ratio = np.median(exact["cosine"]["D"][-1]) / np.median(exact["perturbed"]["D"][-1])
glue("pcr_ratio", round(float(ratio), 1), display=False)
glue("pcr_cos_slope", round(float(summary["cosine", "D"][0]), 2), display=False)
log_n = np.log(np.asarray(sample_sizes, float))
quarter_slope = np.polyfit(log_n, 0.25 * (np.log(log_n) - log_n), 1)[0]
glue("pcr_quarter_slope", round(float(quarter_slope), 2), display=False)
glue("pcr_quarter_margin", round(float(quarter_slope + 0.3), 2), display=False)
glue("pcr_kept_perturbed", round(float(kept_perturbed), 2), display=False)
for router in over:
    b_d, sd_d = over_summary[router, "D"]
    glue(f"pcr_over_b_{router}", round(float(b_d), 2), display=False)
    glue(f"pcr_over_sd_{router}", round(float(sd_d), 2), display=False)
    cap = int(round(100 * float(over_capped[router])))
    glue(f"pcr_over_cap_{router}", cap, display=False)
glue("pcr_over_3sd", round(float(3 * sd_ov), 2), display=False)

# %% [markdown]
# ## What we reproduced
#
# Each claim below is asserted on this run; the seed sweep (`make sweep`) repeats the notebook
# on seeds 0–9. The tolerances come from the bootstrap spread printed with the slopes (in this
# run at most {glue:}`pcr_sd_l2` for the regression-error slopes and {glue:}`pcr_sd_D` for the
# Voronoi-loss slopes), so a tolerance of 0.1 or 0.2 is about three bootstrap standard
# deviations. The exact-specified rate of the perturbed router needs only a nonsingular Fisher
# information at the truth; strong identifiability of the experts is what the over-specified half
# of the theorem needs, so the perturbed router's Voronoi-loss rate check is not a test of that
# hypothesis. Its band of $\pm 0.2$ around $-1/2$ excludes the over-specified rate
# $(\log n/n)^{1/4}$, whose slope over our range of $n$ is {glue:}`pcr_quarter_slope`, by {glue:}`pcr_quarter_margin`.
#
# The cosine router has no row for its raw Voronoi loss. That loss is the sum of the direction
# error, which falls, and the norm error kept from the start, which does not; where it ends
# (here {glue:}`pcr_ratio`× the perturbed router's at the largest $n$, slope
# {glue:}`pcr_cos_slope`) is set by `init_sd`, not by the estimator. The cosine half of the norm
# claim is the same fact: scale invariance makes the objective flat along the key, so the fit
# keeps its starting norm error by construction (here a fraction {glue:}`pcr_kept_cosine`). The
# evidence is the perturbed half: its fit corrects the norm, keeping at most 0.2 of the starting
# error, against 1 for a flat direction. A cutoff of $-0.3$ on the slope (a true $n^{-1/2}$ would
# sit three bootstrap standard deviations beyond it) tests the paper's slow rate on the part of
# the cosine router's parameters the data do determine, the key directions: that row is *not
# reproduced*.
#
# The over-specified Voronoi-loss rate, the theorem's other half, is recorded as
# *inconclusive* in the comparison with the paper below rather than as a claim: in this run its
# slope is
# {glue:}`pcr_over_b_perturbed` with a bootstrap sd of {glue:}`pcr_over_sd_perturbed`, and a check
# whose tolerance is smaller than the measurement's spread would pass or fail by chance.
# {ref}`pcr-over-discussion` gives the evidence.

# %%
claims = lib.Claims(
    "perturbed-cosine-router-moe", paper="nguyen2025perturbing", control=control
)
claims.add(
    "Analytic Jacobian matches central finite differences of the model "
    "(worst relative error < 1e-6)",
    bound(jac_err, 1e-6),
    "(implementation check)",
    jac_err < 1e-6,
    value=jac_err,
)
claims.add(
    "PDE, checked on the model: beta1 . df/dbeta1 by finite differences is < 1e-8 "
    "(relative) for the cosine router and > 0.05 for the perturbed router, and the "
    "analytic Jacobian agrees with it (< 1e-6)",
    f"{bound(pde_cosine, 1e-8)} vs {pde_perturbed:.2f}; "
    f"Jacobian {bound(pde_jac, 1e-6)}",
    "(implementation check of the paper's PDE: cosine parameters interact through it)",
    pde_cosine < 1e-8 and pde_perturbed > 0.05 and pde_jac < 1e-6,
    value=pde_perturbed,
)
for router in ROUTERS:
    b = summary[router, "l2"][0]
    claims.add(
        f"{router} router: regression error falls like n^(-1/2) "
        "(slope within 0.1 of -0.5)",
        b,
        "||f_hat - f_*|| = O_P(sqrt(log n / n))",
        abs(b + 0.5) <= 0.1,
        fmt="{:.2f}",
    )
b = summary["perturbed", "D"][0]
claims.add(
    "perturbed router: Voronoi loss falls like n^(-1/2) (slope within 0.2 of -0.5)",
    b,
    "D = O_P(sqrt(log n / n)) for exact-specified fits",
    abs(b + 0.5) <= 0.2,
    fmt="{:.2f}",
)
b_dir = summary["cosine", "D_dir"][0]
claims.add(
    "cosine router, identifiable part: the direction-only Voronoi loss falls as "
    "slowly as 1 / log^tau n (slope shallower than -0.3)",
    b_dir,
    "parameters as slow as O_P(1 / log^tau n), whatever the experts",
    b_dir > -0.3,
    fmt="{:.2f}",
    expect=False,
)
claims.add(
    "norm of the key: the perturbed fit keeps <= 0.2 of its starting error (median "
    "after / start at the largest n; the cosine fit, flat along the key by "
    "construction, printed beside it)",
    f"{kept_perturbed:.2f} (cosine {kept_cosine:.2f})",
    "the perturbation restores identifiability of the router's parameters",
    kept_perturbed <= 0.2,
    value=kept_perturbed,
)
b = summary["linear", "D"][0]
claims.add(
    "linear router (reference): Voronoi loss falls like n^(-1/2) "
    "(slope within 0.2 of -0.5)",
    b,
    "(reference; not a claim of this paper)",
    abs(b + 0.5) <= 0.2,
    fmt="{:.2f}",
)
b_over = [over_summary[r, "l2"][0] for r in over]
claims.add(
    "over-specified (k = 3): regression error of both cosine routers falls like "
    "n^(-1/2) (worst slope within 0.1 of -0.5)",
    max(b_over, key=lambda v: abs(v + 0.5)),
    "||f_hat - f_*|| = O_P(sqrt(log n / n)) for k >= k*",
    all(abs(v + 0.5) <= 0.1 for v in b_over),
    fmt="{:.2f}",
)
claims.report()

# %% [markdown]
# Every claim is also run under **controls**: named, deliberately wrong variants of this
# chapter, declared in `controls.yaml`, each taking away the idea a claim tests. A Jacobian
# without the derivative of the key's norm (`wrong-jacobian`) breaks the implementation checks;
# a "cosine" router whose score keeps the key's norm (`unnormalised-key`) removes the PDE and
# with it the non-identifiable norm; a perturbed router with $\tau_1 = \tau_2 = 0$
# (`tau-zero`) removes the perturbation; data from ReLU experts fitted with GELU experts
# (`relu-truth`) remove the well-specified model behind every $n^{-1/2}$ rate, and give the
# direction-only loss a floor, the flat curve the paper's slow rate would draw. The table shows,
# for each claim, the controls under which its check comes out the other way (default
# parameters, seed 0). Run one with
# `make run CHAPTER=perturbed-cosine-router-moe CONTROL=tau-zero`: the claims cell then names
# the control and fails if a claim it must flip still holds.
#
# ```{controls-table}
# ```

# %% [markdown]
# ## How this compares with the paper
#
# | | paper {cite:p}`nguyen2025perturbing` | this chapter |
# |---|---|---|
# | Model | cosine-router MoE regression, Gaussian noise, least squares; experts strongly identifiable (e.g. GELU/ReLU) for the perturbed rates | the same, reconstructed ({eq}`eq-pcr-model`): $d = 2$, $k_* = 2$ GELU experts, $\sigma = 0.05$, $\kappa = 4$, $\tau_1 = \tau_2 = 0.5$ (the paper's values were not available) |
# | Identifiability | (not available to us) | expert 1's router fixed in every fit: softmax is blind to a common shift of the scores, for the linear *and* the perturbed router |
# | Regression error | $O_P(\sqrt{\log n / n})$ for both routers | slopes on seeds 0–9 (mean ± sd): cosine {seeds}`3`, perturbed {seeds}`4`, linear {seeds}`5`, exact-specified |
# | Cosine router, parameters | as slow as $O_P(1/\log^\tau n)$, whatever the experts, through a PDE among the router's parameters; in our reconstruction the theorem is about the Voronoi loss of the parameters $(\beta_{1i}, \eta_i)$ themselves | raw parameters: the key's norm is not identifiable (the fit keeps its starting error in it, by scale invariance), so the raw loss has no rate at all and where it stays is set by the starting jitter; that is not the paper's slow convergence. Identifiable part (key directions): slope {seeds}`7`, so the paper's slow rate is **not reproduced** on it. The perturbation restores the norm: the perturbed fit keeps {seeds}`8` of its starting error |
# | Perturbed router, exact-specified | $\mathcal D = O_P(\sqrt{\log n / n})$ | slope {seeds}`6` on seeds 0–9 for $n$ from 500 to 32 000; {paper-preset}`6` in the `paper` preset (to 128 000), where the cosine router's direction-only loss has slope {paper-preset}`7` |
# | Perturbed router, over-specified | the same rate; split atoms at $(\log n/n)^{1/4}$ | **inconclusive** at our scale ($n$ from 500 to 8000, $k = 3$, parameters bounded): slope {glue:}`pcr_over_b_perturbed` (bootstrap sd {glue:}`pcr_over_sd_perturbed`) in this run, against the cosine router's {glue:}`pcr_over_b_cosine` (sd {glue:}`pcr_over_sd_cosine`); the regression error falls at $n^{-1/2}$ (worst slope {seeds}`10`) |
# | Linear router | reference (its rates are the subject of earlier work) | slope {seeds}`9`, like the perturbed router |
# | Scale | synthetic simulations (grid, repetitions not available to us) and real-data language modelling and domain generalisation | synthetic only; $n \le 32\,000$ (the `paper` preset $128\,000$, {paper-preset}`runtime`), 10 data sets per point |
#
# The exact-specified experiment shows the paper's contrast and locates its cause, but it does
# not reproduce the paper's rate. In our reconstruction the norm of each cosine key is not
# identifiable at all: the raw parameters do not converge, which is not a slow rate, since a
# rate of $1/\log^\tau n$ presupposes convergence. The paper's theorem, as far as we can
# reconstruct it (this group defines its Voronoi losses on the parameters $(\beta_{1i}, \eta_i)$
# themselves, as in {eq}`eq-pcr-voronoi`), is about the loss of the raw parameters; on a finite
# sample their flat curve looks like a slow rate, but its level is the start's. On the
# identifiable part, the key directions, the paper's slow rate is not reproduced: the
# direction-only loss converges at $n^{-1/2}$. Whether the paper's lower bound applies to
# directions too, so that a slower rate would appear on other instances or at larger $n$, we
# could not check without its text.
#
# (pcr-over-discussion)=
# ### The over-specified fits
#
# The over-specified rates are where our evidence is weakest. The perturbed router's
# over-specified Voronoi loss falls, with slope {glue:}`pcr_over_b_perturbed` in this run; its
# bootstrap sd is {glue:}`pcr_over_sd_perturbed`, so three sd span {glue:}`pcr_over_3sd`, more
# than the tolerance of 0.2 used for the exact-specified slopes: the run cannot tell
# $n^{-1/2}$ from a markedly slower or faster rate. The cosine router's over-specified loss
# falls too (slope {glue:}`pcr_over_b_cosine`, sd {glue:}`pcr_over_sd_cosine`,
# {numref}`fig-pcr-over`), so the contrast of the exact-specified fits is not visible here.
# {glue:}`pcr_over_cap_perturbed`% of the perturbed router's over-specified fits and
# {glue:}`pcr_over_cap_cosine`% of the cosine router's still stop at the cap of
# `over_iterations` steps, because the curvature vanishes where two atoms share a true expert.
# So few fits stop at the cap that the spread is not mainly the solver's. It comes from the data:
# the Voronoi loss of a split atom
# varies widely between data sets, because the two halves can trade weight against position,
# and the split atoms' $n^{-1/4}$ rate needs larger $n$ before the loss is in its asymptotic
# regime.
# A faithful test needs
# the paper's grid, or many more data sets per point than a one-minute run allows.
#
# ## Try it
#
# * `-p tau=0.1`: the perturbed router moves towards the cosine router. Its Fisher information
#   (table in {ref}`pcr-choices`) doubles the asymptotic parameter error; the Voronoi loss still
#   falls like $n^{-1/2}$, but the fit now corrects less of the error in the key's norm (compare
#   the kept fraction in the claims table with the default's).
# * `-p noise_sd=0.2`: sixteen times less effective data ($n/\sigma^2$). Every curve in
#   {numref}`fig-pcr-regression` and the perturbed and linear curves in {numref}`fig-pcr-voronoi`
#   rise and keep their slopes, but the cosine router's floor, set by where the fit started, does
#   not move, and the gap at the largest $n$ shrinks. The contrast needs enough data for the
#   identifiable part to fall below the floor.
# * `-p over_iterations=1000`: a third of the over-specified steps. More of the over-specified
#   fits stop at the cap (the share is printed beside the slopes); compare the over-specified
#   Voronoi-loss slopes with the default's {glue:}`pcr_over_b_perturbed` and
#   {glue:}`pcr_over_b_cosine`, to see how much of their spread is the solver's.
# * `-p init_sd=0.1`: a third of the default jitter. The cosine router's raw Voronoi loss at
#   $n = 32\,000$ falls with it: where the loss stays is the start's.
# * `-p init_sd=0.0`: every fit starts at the truth. The cosine router's key then has the right
#   norm from the start, and its raw Voronoi loss falls like the others: the flat curve is
#   entirely the norm the data cannot pin down.
