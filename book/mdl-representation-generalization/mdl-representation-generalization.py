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
# # Generalization of representations: MDL bounds and Gaussian-mixture priors
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`sefidgaran2025generalization` (ICLR 2025). Question: if a classifier first maps its input
# to a stochastic representation, is its generalization error controlled by how cheaply the representations
# of the training and test sets can be described under a prior that may itself depend on the data? And does
# a regulariser built from that bound, with a per-class Gaussian-mixture prior learned alongside the network,
# beat the Variational Information Bottleneck (VIB) and its class-dependent variant (CDVIB)? We derive the
# bound, the regulariser, the mixture prior's EM-like updates and the "attention" inside them, then train
# the four methods (no regulariser, VIB, CDVIB, Gaussian mixture) on a small multimodal classification task,
# batched over a grid of $\beta$ and independent replicates. The defaults take about 20 s of CPU time;
# `make run CHAPTER=mdl-representation-generalization PRESET=paper` runs the official code's sweep sizes
# (11 values of $\beta$, 5 replicates, 5 components per class, a 64-dimensional latent) on the same task,
# about 70 min on a CPU.
# ```
#
# ## The question
#
# Representation learning splits a predictor in two: an encoder maps an input $x$ to a latent $u$, a decoder
# maps $u$ to a label. Much of the theory of why such predictors generalize measures the *encoder* through a
# mutual information such as $I(X; U)$, which is what VIB {cite:p}`alemi2017deep` penalises. Those bounds are
# often vacuous and fail to reflect the structure a good encoder gives its latent space, for instance that
# the latents of each class gather around a few points.
#
# {cite:t}`sefidgaran2025generalization` bound the generalization error instead by a *minimum description
# length* (MDL): the relative entropy between the joint distribution of the latents of the training set and
# of a test set of the same size, and a **prior** that may depend on both data sets as long as it is
# symmetric under swapping them. The prior is free, so the question becomes which prior to use. They turn
# the bound into a regulariser, learn a per-class Gaussian-mixture prior jointly with the network, and report
# that it beats VIB and CDVIB {cite:p}`sefidgaran2023minimum` on CIFAR-10 and INTEL images.
#
# Here we ask, on a task small enough to run many replicates: (i) does the regulariser do what its
# derivation says (the variational bound, the attention form of its gradient), (ii) does the mixture prior
# give the highest test accuracy at its best $\beta$, and (iii) does the empirical MDL term order the
# methods' generalization gaps.
#
# ## The setting and the theorem
#
# ```{prf:definition} Encoder, decoder and the generalization gap
# :label: mdl-def-setting
#
# Data $z = (x, y)$ come from an unknown distribution $\mu$ on $\mathcal X \times \{1, \dots, C\}$. A
# training set $S = (z_1, \dots, z_n)$ and a "ghost" test set $S' = (z'_1, \dots, z'_n)$ are drawn
# independently. The learning algorithm returns a stochastic **encoder** $P_{U|X}$ with
# $U \in \mathbb R^K$ and a **decoder** $\phi$; the loss $\ell(u, y) \in [0, 1]$ (we use the 0-1 loss of
# $\phi(u)$). With $U_i \sim P_{U|x_i}$ and $U'_i \sim P_{U|x'_i}$ drawn independently, the
# **generalization gap** is
#
# $$
# \mathrm{gen} = \mathbb E\Big[\frac1n \sum_{i=1}^n \ell(U'_i, y'_i) - \ell(U_i, y_i)\Big] .
# $$
# ```
#
# ```{prf:definition} Symmetric data-dependent prior and the MDL
# :label: mdl-def-mdl
#
# A **symmetric prior** $Q$ is a distribution on the $2n$ latents $(U^n, U'^n)$ that may depend on both data
# sets $S, S'$ (inputs and labels) but is unchanged when, for any set of indices $i$, $z_i$ and $z'_i$ are
# swapped together with $U_i$ and $U'_i$. The **minimum description length** of the latents under $Q$ is
#
# $$
# \mathrm{MDL}(Q) = \mathbb E_{S, S'}\Big[ D_{\mathrm{KL}}\big( P_{U^n, U'^n \mid S, S'} \,\big\|\, Q \big) \Big] .
# $$ (eq-mdl-mdl)
#
# For a product encoder and a product prior $Q = \prod_i Q_{y_i} \times \prod_i Q_{y'_i}$ whose factor
# depends on the class and on the *pooled* data $S \cup S'$ only (which makes it symmetric), the relative
# entropy is a sum of $2n$ per-example terms $D_{\mathrm{KL}}(P_{U|x} \,\|\, Q_y)$.
# ```
#
# ```{prf:theorem} In-expectation MDL bound (informal, after Sefidgaran et al.)
# :label: mdl-thm-bound
#
# For every symmetric prior $Q$,
#
# $$
# \mathrm{gen} \;\le\; \sqrt{\frac{2\, \mathrm{MDL}(Q)}{n}} .
# $$ (eq-mdl-bound)
#
# The paper states sharper in-expectation and tail versions (with different constants and lower-order
# terms); we keep the simplest form, which the proof sketch below gives.
# ```
#
# ```{prf:proof}
# Draw independent signs $J_i \in \{0, 1\}$ and swap $(z_i, U_i) \leftrightarrow (z'_i, U'_i)$ where
# $J_i = 1$. Swapping leaves the distribution of everything unchanged, so
# $\mathrm{gen} = \mathbb E\big[\frac1n \sum_i (-1)^{J_i} \Delta_i\big]$ with
# $\Delta_i = \ell(U'_i, y'_i) - \ell(U_i, y_i) \in [-1, 1]$. By the Donsker–Varadhan formula, for any
# $\lambda > 0$, $\lambda\,\mathbb E_P[f] \le D_{\mathrm{KL}}(P \| Q) + \log \mathbb E_Q[e^{\lambda f}]$. Under
# a symmetric $Q$ the latents carry no information on which member of each pair was the training one, so the
# signs stay independent and uniform, and Hoeffding's lemma gives
# $\log \mathbb E_Q\big[e^{\lambda \frac1n \sum_i (-1)^{J_i} \Delta_i}\big] \le \lambda^2 / (2n)$.
# Hence $\mathrm{gen} \le \mathrm{MDL}(Q)/\lambda + \lambda/(2n)$; the best $\lambda$ gives
# {eq}`eq-mdl-bound`.
# ```
#
# The bound holds for *every* symmetric prior, so the best one can learn it from the data. A Gaussian encoder
# $P_{U|x} = \mathcal N\big(\mu(x), \mathrm{diag}\,\sigma^2(x)\big)$ with a class-wise prior makes the MDL a sum
# of per-example relative entropies. Only the training half is visible while training, so the regulariser is
# their average over the training set, weighted by $\beta$:
#
# $$
# \mathcal L = \frac1n \sum_{i=1}^n \Big[ -\log p_\phi(y_i \mid U_i) \;+\; \beta\, D_{\mathrm{KL}}\big(
# \mathcal N(\mu_i, \sigma_i^2) \,\big\|\, Q_{y_i} \big) \Big], \qquad U_i = \mu_i + \sigma_i \odot \varepsilon_i .
# $$ (eq-mdl-loss)
#
# ```{prf:definition} The three priors
# :label: mdl-def-priors
#
# * **VIB** {cite:p}`alemi2017deep`: one fixed prior for all classes, $Q_y = \mathcal N(0, I_K)$.
# * **CDVIB** {cite:p}`sefidgaran2023minimum`: $M$ Gaussian centres $q_{y1}, \dots, q_{yM}$ per class; each example
#   is charged the relative entropy to its nearest centre (in KL), and the chosen centres move towards their
#   examples.
# * **Gaussian mixture (GM)**: $Q_y = \sum_{j=1}^M \alpha_{yj}\, q_{yj}$ with
#   $q_{yj} = \mathcal N(m_{yj}, \mathrm{diag}\, s^2_{yj})$, weights, means and variances all learned.
# ```
#
# The relative entropy from a Gaussian to a mixture has no closed form. The one we use is an upper bound
# {cite:p}`hershey2007approximating`, and the weights that make it tight are the announced attention.
#
# ```{prf:proposition} Variational upper bound and its attention weights
# :label: mdl-prop-variational
#
# Let $p = \mathcal N(\mu, \mathrm{diag}\,\sigma^2)$ and $Q = \sum_j \alpha_j q_j$. With
# $d_j = D_{\mathrm{KL}}(p \,\|\, q_j)$ (closed form for Gaussians),
#
# $$
# D_{\mathrm{KL}}(p \,\|\, Q) \;\le\; D_{\mathrm{var}}(p \,\|\, Q) = -\log \sum_{j=1}^M \alpha_j e^{-d_j},
# \qquad
# \gamma_j = \frac{\alpha_j e^{-d_j}}{\sum_k \alpha_k e^{-d_k}} ,
# $$ (eq-mdl-var)
#
# and its gradient in the encoder's output is the $\gamma$-weighted sum of the per-component gradients,
# $\nabla_\mu D_{\mathrm{var}} = \sum_j \gamma_j\, (\mu - m_j) / s_j^2$. The weights $\gamma_j$ are a softmax
# of scores $\log\alpha_j - d_j$ between a *query* (the example's latent distribution) and *keys* (the
# components): for equal component variances $s_j^2 = s^2$ the score is
# $\langle \mu, m_j \rangle / s^2 - \|m_j\|^2/(2 s^2) + \log\alpha_j$ plus terms that do not depend on $j$,
# a dot-product attention with a bias.
# ```
#
# ```{prf:proof}
# For any weights $w_j > 0$ summing to one, write $Q = \sum_j w_j (\alpha_j q_j / w_j)$; since $-\log$ is
# convex, $-\log Q \le \sum_j w_j \big(-\log \alpha_j - \log q_j + \log w_j\big)$ pointwise. Taking
# $\mathbb E_p$ and adding $\mathbb E_p \log p$ gives
# $D_{\mathrm{KL}}(p\|Q) \le \sum_j w_j (d_j - \log\alpha_j + \log w_j)$. The right side is a relative entropy
# between $w$ and $\gamma$ plus $D_{\mathrm{var}}$, so its minimum over $w$ is at $w = \gamma$ and equals
# $D_{\mathrm{var}}$. Differentiating $-\log\sum_j \alpha_j e^{-d_j}$ gives $\sum_j \gamma_j \nabla d_j$, and
# $\nabla_\mu d_j = (\mu - m_j)/s_j^2$.
# ```
#
# The prior is not trained by gradients. It is the argument of a minimisation, so after each network step it
# moves towards the minimiser of the bound for the current latents. For fixed $\gamma$ the bound is
# $\sum_i \sum_j \gamma_{ij}\,(d_{ij} - \log\alpha_{y_i j})$ plus terms free of the prior, and its minimiser is
# the M-step of EM for a mixture fitted to Gaussians: per class $c$ and component $j$, with
# $N_{cj} = \sum_{i: y_i = c} \gamma_{ij}$,
#
# $$
# \hat\alpha_{cj} = \frac{N_{cj}}{\sum_k N_{ck}}, \quad
# \hat m_{cj} = \frac{1}{N_{cj}} \sum_{i: y_i = c} \gamma_{ij}\, \mu_i, \quad
# \hat s^2_{cj} = \frac{1}{N_{cj}} \sum_{i: y_i = c} \gamma_{ij}\, \big(\sigma_i^2 + \mu_i^2\big) - \hat m_{cj}^2 .
# $$ (eq-mdl-em)
#
# Because the network changes under it, the prior follows these targets by a moving average with rate
# $\eta$: $m \leftarrow (1-\eta)\, m + \eta\, \hat m$, and the same for $s^2$ and $\alpha$.
#
# * **VIB** is the case $M = 1$, one class-independent component, frozen at $\mathcal N(0, I)$.
# * **CDVIB** is the zero-temperature limit of the attention: $\gamma$ replaced by the one-hot of the nearest
#   component, weights frozen at $1/M$; then $D_{\mathrm{var}} = \min_j d_j + \log M$, the hard-assignment
#   loss up to a constant.
#
# ```{note}
# **Where this chapter departs from the paper.**
# * **Data and model.** The paper trains CNN4 and ResNet encoders on CIFAR-10 and INTEL images for 200 epochs.
#   We use a synthetic task made for the question: $C$ classes, each a mixture of several Gaussian blobs in
#   $\mathbb R^{D}$, with few training examples, a two-layer MLP encoder and a linear decoder, trained
#   full-batch with Adam. We planned to add scikit-learn's bundled digits as real data, but scikit-learn is not
#   installed in the book's environment and nothing may be downloaded, so the chapter has no real-data run.
#   The parameter `data_file` reads a local `.npz` (for instance CIFAR-10, flattened) if one exists; it
#   was tested only on a small synthetic file.
# * **The regulariser.** The official code mixes two approximations of $D_{\mathrm{KL}}(p\|Q)$ (a "product"
#   and a "variational" one), computes them in a "lossy" form with added variances and rescales the sum by 25.
#   We use the variational bound {eq}`eq-mdl-var` alone, without the lossy variances; $\beta$ is therefore on a
#   different scale from the paper's.
# * **The prior updates.** We use the moment-matching M-step {eq}`eq-mdl-em` (the variance includes the
#   spread of the means); the code averages the encoder variances only, adds SGLD-like noise to the mean
#   updates and re-seeds collapsed components. We keep the re-seeding (a component whose weight falls below
#   $1/(100M)$ restarts near its class's heaviest component) and drop the noise.
# * **The MDL term we measure.** The bound needs a symmetric prior. After training we fit, for each model, a
#   per-class mixture by EM (full steps of {eq}`eq-mdl-em`) to the pooled latents of the $n$ training examples
#   and $n$ fresh test examples, and report the average of $D_{\mathrm{var}}$ over those $2n$ examples, an upper
#   bound on the per-example relative entropy to that prior. The same estimator is applied to all four methods.
# * **Accuracy** is averaged over `test_samples` draws of the latent per example, as the code does (12 draws).
# ```
#
# ## The algorithm
#
# The parameters: the task, the network, the grid of $\beta$ and the number of independent replicates (each
# replicate draws a new task, new data and new initial weights; all methods share them within a replicate).

# %% tags=["parameters"]
seed = 0
device = "cpu"  # "cpu", "cuda" or "auto"
n_classes = 4  # C
modes_per_class = 3  # Gaussian blobs per class
input_dim = 20  # D
centre_scale = 1.0  # blob centres are drawn N(0, centre_scale^2 I); noise is N(0, I)
n_train = 200  # training examples per replicate
n_test = 2000  # test examples per replicate
hidden = 64  # width of the MLP encoder
latent_dim = 8  # K
n_components = 3  # M, mixture components (and CDVIB centres) per class
betas = [0.001, 0.01, 0.1]  # regularisation weights
steps = 300  # full-batch Adam steps
learning_rate = 0.003
prior_rate = 0.05  # eta, moving-average rate of the prior updates
test_samples = 12  # latent draws per example when measuring accuracy
mdl_em_iters = 30  # EM steps of the symmetric prior fitted after training
n_replicates = 4  # independent tasks, batched
data_file = (
    ""  # optional local .npz with x_train, y_train, x_test, y_test (never downloaded)
)
progress = False  # a progress bar over training steps (on in paper.yaml)

# %% tags=["hide-input"]
try:
    import lib
except ModuleNotFoundError:
    raise SystemExit(
        "This chapter needs the book's `lib` package. Run it from a clone of the "
        "book's repository after `make install` (see its README), or "
        "`pip install -r requirements.txt` and `pip install -e .` in that clone."
    ) from None
import math
import os
import time

import numpy as np
import torch
from scipy.stats import spearmanr

lib.check_int("seed", seed, low=0, high=2**32 - 1)
lib.check_choice("device", device, ["auto", "cpu", "cuda"])
lib.check_int("n_classes", n_classes, low=2, high=100)
lib.check_int("modes_per_class", modes_per_class, low=1, high=50)
lib.check_int("input_dim", input_dim, low=1, high=4096)
lib.check_float("centre_scale", centre_scale, low=0.0, low_open=True)
lib.check_int("n_train", n_train, low=2 * n_classes)
lib.check_int("n_test", n_test, low=n_train)
lib.check_int("hidden", hidden, low=1, high=4096)
lib.check_int("latent_dim", latent_dim, low=1, high=1024)
lib.check_int("n_components", n_components, low=1, high=50)
lib.check_float_list("betas", betas, low=0.0, low_open=True, min_len=2, increasing=True)
lib.check_int("steps", steps, low=1)
lib.check_float("learning_rate", learning_rate, low=0.0, low_open=True)
lib.check_float("prior_rate", prior_rate, low=0.0, high=1.0, low_open=True)
lib.check_int("test_samples", test_samples, low=1, high=1000)
lib.check_int("mdl_em_iters", mdl_em_iters, low=1)
lib.check_int("n_replicates", n_replicates, low=3)
lib.check_bool("progress", progress)
if not isinstance(data_file, str):
    raise TypeError(
        f"parameter `data_file` = {data_file!r} is invalid: must be a string"
    )
if data_file:
    if not os.path.isfile(data_file):
        raise ValueError(
            f"parameter `data_file` = {data_file!r} is invalid: no such file "
            "(the chapter never downloads data; give a local .npz or leave it empty)"
        )
    with np.load(data_file) as archive:
        missing = {"x_train", "y_train", "x_test", "y_test"} - set(archive.files)
        if missing:
            raise ValueError(
                f"parameter `data_file` = {data_file!r} is invalid: "
                f"lacks {sorted(missing)}"
            )
        n_classes = int(archive["y_train"].max()) + 1
        input_dim = int(np.prod(archive["x_train"].shape[1:]))
        if len(archive["y_train"]) < n_train or len(archive["y_test"]) < n_test:
            raise ValueError(
                f"parameter `data_file` = {data_file!r} is invalid: "
                "fewer examples than `n_train` or `n_test`"
            )
n_models = n_replicates * (1 + 3 * len(betas))
largest = n_models * max(
    n_test * max(hidden, latent_dim),
    n_train * n_classes * n_components * latent_dim,
)
if 8 * largest > 2e9:
    raise ValueError(
        f"the run would need about {8 * largest / 1e9:.0f} GB for one array: reduce "
        "`n_replicates`, `betas`, `n_test`, `hidden`, `test_samples` or `latent_dim`"
    )
rng, device = lib.setup(seed, device)
torch.set_default_dtype(torch.float64)


# %% [markdown]
# **The task.** Each class is a mixture of `modes_per_class` Gaussian blobs, so a good representation has
# several clusters per class: the situation where one prior centre per class (VIB has one for all classes)
# is a poor description and a mixture should help.

# %%
def make_task(rng, n_replicates, n_train, n_test):
    """Per replicate: blob centres, a training set and a test set (float64, int64)."""
    C, J, D = n_classes, modes_per_class, input_dim
    centres = centre_scale * rng.standard_normal((n_replicates, C, J, D))

    def draw(n):
        y = rng.integers(C, size=(n_replicates, n))
        mode = rng.integers(J, size=(n_replicates, n))
        r = np.arange(n_replicates)[:, None]
        x = centres[r, y, mode] + rng.standard_normal((n_replicates, n, D))
        return torch.tensor(x, device=device), torch.tensor(y, device=device)

    return draw(n_train), draw(n_test)


def load_task(rng, n_replicates, n_train, n_test):
    """Per replicate: random subsets of the local data set, standardised."""
    with np.load(data_file) as archive:
        x_tr, y_tr, x_te, y_te = (
            archive[k] for k in ("x_train", "y_train", "x_test", "y_test")
        )
    x_tr = x_tr.reshape(len(x_tr), -1).astype(np.float64)
    x_te = x_te.reshape(len(x_te), -1).astype(np.float64)
    centre, scale = x_tr.mean(0), x_tr.std(0) + 1e-8

    def subsets(x, y, n):
        idx = np.stack(
            [rng.choice(len(x), n, replace=False) for _ in range(n_replicates)]
        )
        x_sub = torch.tensor((x[idx] - centre) / scale, device=device)
        return x_sub, torch.tensor(y[idx].astype(np.int64), device=device)

    return subsets(x_tr, y_tr, n_train), subsets(x_te, y_te, n_test)


task = load_task if data_file else make_task
(x_train, y_train), (x_test, y_test) = task(rng, n_replicates, n_train, n_test)
methods = ["none"] + [m for m in ("VIB", "CDVIB", "GM") for _ in betas]
method_beta = [0.0] + [b for _ in range(3) for b in betas]
G = len(methods)
print(f"{n_replicates} replicates x {G} (method, beta) pairs = {n_models} networks")


# %% [markdown]
# **The networks.** All `n_replicates` × (1 + 3 × len(`betas`)) networks are trained at once: every weight
# has a leading replicate axis `r` and a method axis `g`, and the losses are summed. Adam acts element by
# element, so the sum trains each network exactly as if it were alone. The encoder outputs a mean and a
# standard deviation (a softplus, shifted so that it starts small, as in VIB's reference code); the decoder is
# linear.

# %%
def init_networks(R, G):
    def weight(fan_in, fan_out):
        w = torch.randn(R, G, fan_in, fan_out, device=device) / math.sqrt(fan_in)
        return w.requires_grad_()

    def bias(width):
        return torch.zeros(R, G, 1, width, device=device, requires_grad=True)

    return [
        weight(input_dim, hidden),
        bias(hidden),
        weight(hidden, 2 * latent_dim),
        bias(2 * latent_dim),
        weight(latent_dim, n_classes),
        bias(n_classes),
    ]


def encode(net, x):
    """x[r, n, D] -> mean and std [r, g, n, K] of the Gaussian latent."""
    W1, b1, W2, b2 = net[:4]
    out = torch.relu(x[:, None] @ W1 + b1) @ W2 + b2
    mean, raw = out.split(latent_dim, dim=-1)
    return mean, torch.nn.functional.softplus(raw - 5) + 1e-4


def decode(net, u):
    return u @ net[4] + net[5]


# %% [markdown]
# **The prior and its attention.** `kl_gauss` is the closed-form relative entropy between diagonal Gaussians;
# `scores` gives, for each example, $\log\alpha_{y_i j} - d_{ij}$ over its own class's components, so that
# `-logsumexp(scores)` is $D_{\mathrm{var}}$ of {eq}`eq-mdl-var` and `softmax(scores)` is the attention
# $\gamma$.

# %%
def kl_gauss(mean, var, m, s2):
    """KL(N(mean, var) || N(m, s2)), diagonal Gaussians, summed over the last axis."""
    return 0.5 * (torch.log(s2 / var) + (var + (mean - m) ** 2) / s2 - 1).sum(-1)


def own_class(table, y):
    """table[r, g, C, M, ...] -> the rows of each example's class, [r, g, n, M, ...]."""
    R, G = table.shape[:2]
    index = y[:, None, :].expand(R, G, -1)
    index = index.reshape(R, G, -1, *([1] * (table.dim() - 3)))
    return torch.gather(table, 2, index.expand(R, G, -1, *table.shape[3:]))


def scores(prior, mean, var, y):
    """Divergences d[r, g, n, M] and attention scores log(alpha) - d."""
    weights, means, variances = prior
    d = kl_gauss(
        mean[..., None, :],
        var[..., None, :],
        own_class(means, y),
        own_class(variances, y),
    )
    return d, torch.log(own_class(weights, y)) - d


# %% [markdown]
# The M-step {eq}`eq-mdl-em`, with the moving average and the re-seeding of dead components. `gamma` is the
# attention for GM, a one-hot for CDVIB; `learn_weights` is off for CDVIB.

# %%
def em_step(prior, mean, var, y, gamma, rate, learn_weights):
    weights, means, variances = prior
    onehot = torch.nn.functional.one_hot(y, n_classes).to(mean.dtype)  # [r, n, C]
    w = onehot[:, None, :, :, None] * gamma[:, :, :, None, :]  # [r, g, n, C, M]
    mass = w.sum(2)  # N_cj
    denom = mass[..., None].clamp_min(1e-12)
    m_hat = torch.einsum("rgncm,rgnk->rgcmk", w, mean) / denom
    second = torch.einsum("rgncm,rgnk->rgcmk", w, var + mean**2) / denom
    s2_hat = (second - m_hat**2).clamp_min(1e-6)
    seen = mass[..., None] > 1e-3
    means = torch.where(seen, (1 - rate) * means + rate * m_hat, means)
    variances = torch.where(seen, (1 - rate) * variances + rate * s2_hat, variances)
    if learn_weights:
        a_hat = mass / mass.sum(-1, keepdim=True).clamp_min(1e-12)
        weights = (1 - rate) * weights + rate * a_hat
        dead = weights < 1 / (100 * n_components)
        best = weights.argmax(-1, keepdim=True)
        best_mean = torch.gather(means, 3, best[..., None].expand_as(means[..., :1, :]))
        jitter = 0.1 * variances.sqrt() * torch.randn_like(means)
        means = torch.where(dead[..., None], best_mean + jitter, means)
        weights = torch.where(dead, torch.full_like(weights, 1 / n_components), weights)
        weights = weights / weights.sum(-1, keepdim=True)
    return weights, means, variances


def pick(rng, pool, n):
    """n_components distinct members of pool (any examples if the class is too rare)."""
    if pool.size < n_components:
        pool = np.arange(n)
    return rng.choice(pool, n_components, replace=False)


def init_prior(mean, y, rng):
    """Scattered start: each class's components sit on latents of random examples."""
    R, G = mean.shape[:2]
    picks = np.stack(
        [
            np.stack(
                [
                    pick(rng, np.flatnonzero(y_r == c), len(y_r))
                    for c in range(n_classes)
                ]
            )
            for y_r in y.cpu().numpy()
        ]
    )  # [r, C, M]
    index = torch.tensor(picks, device=device).reshape(R, 1, -1, 1)
    means = torch.gather(mean, 2, index.expand(R, G, -1, latent_dim))
    means = means.reshape(R, G, n_classes, n_components, latent_dim).clone()
    weights = torch.full(means.shape[:-1], 1 / n_components, device=device)
    return weights, means, torch.ones_like(means)


# %% [markdown]
# **Training.** One loss {eq}`eq-mdl-loss` for all methods: each network's regulariser is chosen by its
# method, then the prior takes one moving-average step on the (detached) latents of that batch.

# %%
def train(x, y, rng):
    R = x.shape[0]
    net = init_networks(R, G)
    kind = torch.tensor([["none", "VIB", "CDVIB", "GM"].index(m) for m in methods])
    kind = kind.to(device)[None, :]
    beta = torch.tensor(method_beta, device=device)[None, :]
    with torch.no_grad():
        prior = init_prior(encode(net, x)[0], y, rng)
    targets = torch.nn.functional.one_hot(y, n_classes)[:, None].to(x.dtype)
    optimiser = torch.optim.Adam(net, lr=learning_rate)
    for _ in lib.progress(range(steps), enabled=progress, desc="training"):
        mean, std = encode(net, x)
        var = std**2
        u = mean + std * torch.randn_like(std)
        log_p = torch.log_softmax(decode(net, u), -1)
        cross_entropy = -(log_p * targets).sum(-1).mean(-1)  # [r, g]
        d, s = scores(prior, mean, var, y)
        vib = kl_gauss(mean, var, torch.zeros_like(mean), torch.ones_like(var))
        regulariser = torch.stack(
            [
                torch.zeros_like(vib),
                vib,
                d.min(-1).values,  # CDVIB: the nearest centre
                -torch.logsumexp(s, -1),  # GM: D_var
            ]
        ).mean(-1)  # [4, r, g]
        chosen = torch.gather(regulariser, 0, kind.expand(R, G)[None])[0]
        loss = (cross_entropy + beta * chosen).sum()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        with torch.no_grad():
            hard = torch.nn.functional.one_hot(d.argmin(-1), n_components)
            is_cd = (kind == 2)[..., None, None]
            gamma = torch.where(is_cd, hard.to(s.dtype), torch.softmax(s, -1))
            prior = em_step(
                prior, mean.detach(), var.detach(), y, gamma, prior_rate, True
            )
            if is_cd.any():  # CDVIB keeps uniform weights
                uniform = torch.full_like(prior[0], 1 / n_components)
                prior = (torch.where(is_cd, uniform, prior[0]),) + prior[1:]
    return net, prior


# %% [markdown]
# **Measurements.** Accuracy averages over `test_samples` draws of each latent. The empirical MDL term fits
# a symmetric prior (per class, $M$ components) by full EM steps to the pooled latents of the training set
# and of the first `n_train` test examples, then averages $D_{\mathrm{var}}$ over those $2n$ examples.

# %%
@torch.no_grad()
def accuracy(net, x, y):
    mean, std = encode(net, x)
    hits = torch.zeros(mean.shape[:2], device=device)
    for _ in range(test_samples):
        u = mean + std * torch.randn_like(std)
        hits += (decode(net, u).argmax(-1) == y[:, None]).to(mean.dtype).mean(-1)
    return hits / test_samples  # [r, g]


@torch.no_grad()
def empirical_mdl(net, x_a, y_a, x_b, y_b, rng):
    mean = torch.cat([encode(net, x_a)[0], encode(net, x_b)[0]], 2)
    std = torch.cat([encode(net, x_a)[1], encode(net, x_b)[1]], 2)
    y = torch.cat([y_a, y_b], 1)
    prior = init_prior(mean, y, rng)
    for _ in range(mdl_em_iters):
        _, s = scores(prior, mean, std**2, y)
        prior = em_step(prior, mean, std**2, y, torch.softmax(s, -1), 1.0, True)
    _, s = scores(prior, mean, std**2, y)
    return (-torch.logsumexp(s, -1)).mean(-1)  # nats per example, [r, g]


# %% [markdown]
# Before training anything, two checks of {prf:ref}`mdl-prop-variational` on random Gaussians and mixtures:
# $D_{\mathrm{var}}$ is above a Monte Carlo estimate of the true relative entropy, and autograd's gradient of
# $D_{\mathrm{var}}$ in $\mu$ equals the attention-weighted sum $\sum_j \gamma_j (\mu - m_j)/s_j^2$.

# %%
def check_variational_bound(n_pairs=64, n_mc=20000, K=3, M=4):
    g = torch.Generator(device="cpu").manual_seed(seed)
    mu = torch.randn(n_pairs, K, generator=g, requires_grad=True)
    var = 0.2 + torch.rand(n_pairs, K, generator=g)
    m = 1.5 * torch.randn(n_pairs, M, K, generator=g)
    s2 = 0.2 + torch.rand(n_pairs, M, K, generator=g)
    alpha = torch.softmax(torch.randn(n_pairs, M, generator=g), -1)
    d = kl_gauss(mu[:, None], var[:, None], m, s2)
    bound = -torch.logsumexp(torch.log(alpha) - d, -1)
    gamma = torch.softmax(torch.log(alpha) - d, -1)
    (grad,) = torch.autograd.grad(bound.sum(), mu)
    attention_grad = (gamma[..., None] * (mu[:, None] - m) / s2).sum(1)
    z = mu.detach()[None] + var.sqrt()[None] * torch.randn(
        n_mc, n_pairs, K, generator=g
    )

    def log_normal(z, m, s2):
        return -0.5 * (torch.log(2 * math.pi * s2) + (z - m) ** 2 / s2).sum(-1)

    log_p = log_normal(z, mu.detach(), var)
    log_q = torch.logsumexp(
        torch.log(alpha) + log_normal(z[:, :, None], m, s2), -1
    )  # [mc, pairs]
    terms = log_p - log_q
    kl_mc, kl_se = terms.mean(0), terms.std(0) / math.sqrt(n_mc)
    slack = (bound.detach() - kl_mc) / kl_se  # in Monte Carlo standard errors
    grad_error = ((grad - attention_grad).abs().max() / grad.abs().max()).item()
    return slack, grad_error, (bound.detach() - kl_mc).mean().item()


slack, grad_error, mean_gap = check_variational_bound()
print(f"smallest (D_var - KL_mc) / s.e. over 64 pairs: {slack.min().item():.1f}")
print(f"mean looseness of the bound: {mean_gap:.2f} nats")
print(f"autograd vs attention-weighted gradient, max relative error: {grad_error:.0e}")

# %% [markdown]
# ## The experiment
#
# All networks train together; then we measure train and test accuracy, the gap, and the empirical MDL term.

# %%
start = time.time()
net, prior = train(x_train, y_train, rng)
train_acc = accuracy(net, x_train, y_train).cpu().numpy()
test_acc = accuracy(net, x_test, y_test).cpu().numpy()
gap = train_acc - test_acc
mdl = (
    empirical_mdl(net, x_train, y_train, x_test[:, :n_train], y_test[:, :n_train], rng)
    .cpu()
    .numpy()
)
print(f"{time.time() - start:.1f} s wall-clock")


def mean_se(a, axis=0):
    return a.mean(axis), a.std(axis, ddof=1) / math.sqrt(a.shape[axis])


print(f"{'method':>6} {'beta':>6} {'train':>6} {'test':>13} {'gap':>6} {'MDL':>6}")
for g in range(G):
    m, se = mean_se(test_acc[:, g])
    print(
        f"{methods[g]:>6} {method_beta[g]:6.0e} {train_acc[:, g].mean():6.3f} "
        f"{m:6.3f} ± {se:.3f} {gap[:, g].mean():6.3f} {mdl[:, g].mean():6.1f}"
    )

# %% [markdown]
# Every network fits its training set (train accuracy at or near 1), so the gap is mostly the test error.
# {numref}`fig-mdl-representation-generalization-accuracy` shows test accuracy against $\beta$: at the
# smallest $\beta$ all three regularisers stay within about a point of the unregularised network; as
# $\beta$ grows VIB loses far more than the two class-dependent priors. The
# comparison the paper makes is between the methods *at their best* $\beta$.

# %% mystnb={"figure": {"caption": "Test accuracy against the regularisation weight \u03b2 for VIB, CDVIB and the Gaussian-mixture prior (mean \u00b1 one standard error over replicates); the dashed line is the unregularised network.", "name": "fig-mdl-representation-generalization-accuracy"}} tags=["hide-input"]
fig, ax = lib.subplots()
for name, marker in (("VIB", "o"), ("CDVIB", "s"), ("GM", "^")):
    cols = [g for g in range(G) if methods[g] == name]
    m, se = mean_se(test_acc[:, cols])
    ax.errorbar(betas, m, yerr=se, marker=marker, capsize=3, label=name)
m0 = test_acc[:, 0].mean()
ax.axhline(m0, color="gray", linestyle="--", label="no regulariser")
ax.set_xscale("log")
ax.set_xlabel("regularisation weight β")
ax.set_ylabel("test accuracy (fraction correct)")
ax.legend()
lib.show(fig)


# %% [markdown]
# Each method's best $\beta$ is chosen by its mean test accuracy over replicates, as the paper's figures
# do; the three methods get the same number of tries, so the selection favours none of them. The gains are
# paired: the same replicate's task, data and initial weights for every method.

# %%
def best_column(name):
    cols = [g for g in range(G) if methods[g] == name]
    return cols[int(test_acc[:, cols].mean(0).argmax())]


best = {name: best_column(name) for name in ("VIB", "CDVIB", "GM")}
for name, g in best.items():
    print(f"{name:>6}: best beta {method_beta[g]:g}, test {test_acc[:, g].mean():.3f}")
gain = {
    rival: test_acc[:, best["GM"]] - test_acc[:, best[rival]]
    for rival in ("VIB", "CDVIB")
}
for rival, d in gain.items():
    m, se = mean_se(d)
    print(f"GM - {rival} at best beta: {m:+.3f} ± {se:.3f}")
large = [g for g in range(G) if method_beta[g] == betas[-1]]
for g in large:
    print(f"{methods[g]:>6} at beta {betas[-1]:g}: test {test_acc[:, g].mean():.3f}")

# %% [markdown]
# {numref}`fig-mdl-representation-generalization-mdl` puts the empirical MDL term beside the measured gap,
# one point per (method, $\beta$). The bound {eq}`eq-mdl-bound` says a small MDL forces a small gap; if the
# MDL term is to guide the choice of regulariser, it should also *order* the gaps.

# %% mystnb={"figure": {"caption": "Generalization gap (train minus test accuracy) against the empirical MDL term (nats per example), one point per method and \u03b2, averaged over replicates; larger markers are larger \u03b2.", "name": "fig-mdl-representation-generalization-mdl"}} tags=["hide-input"]
fig, ax = lib.subplots()
for name, marker in (("none", "x"), ("VIB", "o"), ("CDVIB", "s"), ("GM", "^")):
    cols = [g for g in range(G) if methods[g] == name]
    size = [30 + 40 * betas.index(method_beta[g]) if g else 40 for g in cols]
    ax.scatter(
        mdl[:, cols].mean(0), gap[:, cols].mean(0), marker=marker, s=size, label=name
    )
ax.set_xscale("log")
ax.set_xlabel("empirical MDL term (nats per example)")
ax.set_ylabel("generalization gap (accuracy)")
ax.legend()
lib.show(fig)

# %%
rho_pooled = spearmanr(mdl.mean(0), gap.mean(0)).statistic
rho_each = np.array([spearmanr(mdl[r], gap[r]).statistic for r in range(n_replicates)])
print(
    f"Spearman rank correlation, MDL term vs gap (replicate means): {rho_pooled:+.2f}"
)
print(f"per replicate: mean {rho_each.mean():+.2f}, max {rho_each.max():+.2f}")
gm_cols = [g for g in range(G) if methods[g] == "GM"]
mdl_falls = bool(np.all(np.diff(mdl[:, gm_cols].mean(0)) < 0))
print("GM's MDL term falls as beta grows:", mdl_falls)
# eq-mdl-bound with MDL = 2n x (MDL term per example): the bound is 2 sqrt(term)
print(f"smallest value of the bound over all settings: {2 * np.sqrt(mdl.min()):.1f}")


# %% [markdown]
# ## What we reproduced
#
# Tolerances. The implementation checks have fixed limits: the bound must sit above the Monte Carlo estimate
# by more than $-3$ standard errors for every pair, and the two gradients must agree to $10^{-10}$ (float64).
# The accuracy comparisons are paired over the `n_replicates` replicates, with the standard error of the
# paired difference measured across them ("above" means mean $-$ 3 s.e. $> 0$). A first version of
# this chapter asserted that GM is "not below" each rival at its best $\beta$ (mean + 3 s.e. $\ge 0$):
# that held for CDVIB on all ten seeds of the sweep but failed for VIB on one seed in ten (and sat at
# $+0.000$ on another), so the data do not support even the weak form of the paper's ordering. What
# they do support is a tie: over the ten seeds every 3-s.e. interval of the two paired gains lay within
# $\pm 0.04$ (within $[-0.031, +0.036]$), and that is the tolerance of the tie claim below. For the ordering claim we fixed, before looking at the results, the level a
# guide for choosing regularisers would need: a rank correlation of at least $+0.5$ between the MDL term and
# the gap across the ten (method, $\beta$) settings. The paper's two headline claims do not reproduce here
# in the form the abstract states them; they are registered as *not reproduced*, and their checks are still
# asserted (the cell fails if they start to hold). So is a third, the non-vacuousness the paper reports
# for its bounds, checked here on the simple form {eq}`eq-mdl-bound` with our MDL estimate.

# %%
def lower(a):
    m, se = mean_se(a)
    return m - 3 * se


def upper(a):
    m, se = mean_se(a)
    return m + 3 * se


claims = lib.Claims(
    "mdl-representation-generalization", paper="sefidgaran2025generalization"
)
claims.add(
    "D_var is an upper bound on KL(Gaussian ‖ mixture): min over 64 random pairs of "
    "(D_var − Monte Carlo KL) in standard errors",
    slack.min().item(),
    "variational upper bound used as the regulariser",
    slack.min().item() > -3,
    fmt="{:.1f}",
)
claims.add(
    "The gradient of D_var is the attention-weighted sum Σ γ_j (μ − m_j)/s_j² "
    "(max relative error)",
    "< 1e-10" if grad_error < 1e-10 else grad_error,
    "a weighted attention emerges in the prior learning",
    grad_error < 1e-10,
)
claims.add(
    f"At the largest β ({betas[-1]:g}) the mixture prior keeps more test accuracy "
    "than VIB's N(0, I) prior (mean − 3 s.e. of the paired gain)",
    lower(test_acc[:, large[2]] - test_acc[:, large[0]]),
    "a data-dependent prior is a better choice than a fixed one",
    lower(test_acc[:, large[2]] - test_acc[:, large[0]]) > 0,
    fmt="{:+.3f}",
)
claims.add(
    "The regulariser lowers the empirical MDL term: GM's MDL falls at every step "
    "up the β grid",
    float(np.diff(mdl[:, gm_cols].mean(0)).max()),
    "the regulariser is the MDL term of the bound",
    mdl_falls,
    fmt="{:+.2f}",
)
tie = max(max(upper(d), -lower(d)) for d in gain.values())
claims.add(
    "At their best β the mixture prior ties VIB and CDVIB: the 3-s.e. intervals "
    "of both paired gains lie within ±0.04 (max of |mean ± 3 s.e.|)",
    tie,
    "GM's test accuracy at least VIB's and CDVIB's",
    tie < 0.04,
    fmt="{:.3f}",
)
claims.add(
    "At its best β the mixture prior beats both VIB and CDVIB at theirs "
    "(min over rivals of mean − 3 s.e. of the paired gain)",
    min(lower(d) for d in gain.values()),
    "outperforms VIB and CDVIB (Abstract)",
    min(lower(d) for d in gain.values()) > 0,
    fmt="{:+.3f}",
    expect=False,
)
claims.add(
    "The empirical MDL term orders the (method, β) settings' generalization gaps "
    "(Spearman ρ ≥ 0.5)",
    rho_pooled,
    "bounds reflect the simplicity of the encoder (Abstract)",
    rho_pooled >= 0.5,
    fmt="{:+.2f}",
    expect=False,
)
bound_min = 2 * np.sqrt(mdl.min())
claims.add(
    "The bound of eq. (eq-mdl-bound), 2 sqrt(MDL term per example), is non-vacuous "
    "(< 1) for at least one trained network",
    bound_min,
    "non-vacuous bounds (paper's experiments, per our notes)",
    bound_min < 1,
    fmt="{:.1f}",
    expect=False,
)
claims.report()

# %% [markdown]
# ## How this compares with the paper
#
# | | Paper {cite:p}`sefidgaran2025generalization` | This chapter | Why they differ |
# |---|---|---|---|
# | Data | CIFAR-10, INTEL images | 4 classes × 3 blobs in $\mathbb R^{20}$, 200 training examples | one CPU minute; digits needed scikit-learn, which is not installed |
# | Encoder | CNN4, ResNet18/50; $K = 64$ | 2-layer MLP, 64 units; $K = 8$ | scale |
# | Training | 200 epochs, Adam $10^{-4}$, batch 128 | 300 full-batch Adam steps, $3 \cdot 10^{-3}$ | scale |
# | Sweep | 11 values of $\beta$, 5 runs, $M = 5$ | 3 values, 4 replicates, $M = 3$ (`paper` preset: 11, 5, 5) | time |
# | GM regulariser | product + variational, lossy, ×25 | variational bound {eq}`eq-mdl-var` only | simplest form of the derivation |
# | GM vs VIB, CDVIB at best β | GM higher (exact numbers not in our notes) | a tie: mean paired gains within ±0.01, 3-s.e. intervals within ±0.04 on ten seeds | see below |
# | Data-dependent vs $\mathcal N(0, I)$ prior | GM, CDVIB above VIB | above VIB at large β | reproduced |
# | MDL term vs gap | bounds reflect the encoder's simplicity | rank correlation about −0.9 | see below |
# | Bound value | non-vacuous (per our notes) | $2\sqrt{\text{term}} \ge 2.6$: vacuous | simple bound form, our estimator |
#
# Two things stand out. First, the best $\beta$ of every method is the smallest of the grid, where the three
# regularisers barely change the network: all three then sit within a point of the unregularised network
# and of each other, and a paired comparison over replicates cannot separate them. The networks memorise
# the 200 training examples whatever the method (train accuracy at or near 1), and a stronger prior mostly
# adds latent noise, which costs test accuracy. The class-dependent priors cost much less of it than VIB's
# single $\mathcal N(0, I)$, because they do not pull the latents of different classes (and of different
# blobs of one class) onto each other; this part of the paper's argument for data-dependent priors
# reproduces clearly. What does not reproduce is the gain of GM over CDVIB and VIB at their best
# $\beta$; the paper reports it on image data with deep encoders, a regime this one-minute task does not
# reach, and with a regulariser (the lossy, mixed approximation) that we replaced by its simplest form.
#
# Second, the empirical MDL term is dominated by the entropy of the encoder. An unregularised encoder has
# tiny latent variances and therefore a large relative entropy to any smooth prior, yet it generalizes
# about as well as any other here, while the strongest regularisers have the smallest MDL term and the
# largest gaps. The bound {eq}`eq-mdl-bound` is an upper bound and is not contradicted by this: with
# $\mathrm{MDL} = 2n$ times the per-example term, it equals $2\sqrt{\text{term}}$, which is above 1 (vacuous
# for the 0-1 loss) for every setting here, as printed above. The paper reports non-vacuous values with its
# sharper bounds and its own estimator; we did not reproduce that. Nor does the term *order* the settings,
# which is what one would need to pick a regulariser or a $\beta$ from it.
#
# ## Try it
#
# * Set `n_components = 1`: the mixture prior becomes one learned Gaussian per class and GM and CDVIB become
#   the same algorithm (only their random initial weights differ); their rows agree within about a point.
# * Set `n_train = 800`: with four times the data every gap roughly halves (to 0.05–0.08), and the
#   unregularised network is now the most accurate of all.
# * Set `betas = [0.0001, 0.001, 0.01]`: every method's best $\beta$ moves to 0.0001, where the three sit
#   within a point of each other and of the unregularised network; at $\beta = 0.01$ VIB still loses the most.
