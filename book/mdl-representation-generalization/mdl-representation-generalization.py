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
# Paper: {cite:t}`sefidgaran2025generalization` (ICLR 2025). Question: if a classifier first maps
# its input to a stochastic representation, is its generalization error controlled by how cheaply
# the representations of the training and test sets can be described under a prior that may
# itself depend on the data? And does a regulariser built from that bound, with a per-class
# Gaussian-mixture prior learned alongside the network, beat the Variational Information
# Bottleneck (VIB) and its class-dependent variant (CDVIB)? We derive the bound, the regulariser,
# the mixture prior's EM-like updates and the "attention" inside them, then train the four
# methods (no regulariser, VIB, lossy CDVIB, lossy Gaussian mixture), and the mixture with its
# prior frozen, on 100 of scikit-learn's
# 8×8 handwritten digits with noisy labels, batched over a wide grid of $\beta$ and independent
# replicates, with $\beta$ chosen on a validation split. The defaults take about a minute of CPU
# time; `make run CHAPTER=mdl-representation-generalization PRESET=paper` runs the official
# code's sweep sizes (11 values of $\beta$, 5 components per class, a 64-dimensional latent,
# 200 epochs) on the same data, with 10 replicates.
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
# Here we ask, on real images and a training set small enough for regularisation to matter:
# (i) does the regulariser do what its derivation says (the variational bound, the attention
# form of its gradient), (ii) does the mixture prior's regulariser help at all here, (iii) does the mixture prior
# give a higher test accuracy than VIB and CDVIB when each has its $\beta$ tuned on validation
# data, (iv) does the MDL term order the generalization gaps of the (method, $\beta$) settings,
# and (v) is the bound non-vacuous.
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
#
# Because the network changes under it, the prior follows these targets by moving averages, with
# one rate for the means, one for the weights and one for the variances
# ($m \leftarrow (1-\eta_m)\, m + \eta_m\, \hat m$, and likewise with $\eta_\alpha$, $\eta_s$).
#
# * **VIB** is the case $M = 1$, one class-independent component, frozen at $\mathcal N(0, I)$.
# * **CDVIB** is the zero-temperature limit of the attention: $\gamma$ replaced by the one-hot of
#   the nearest component, weights frozen at $1/M$; then $D_{\mathrm{var}} = \min_j d_j + \log M$,
#   the hard-assignment loss up to a constant.
#
# **The lossy divergence.** The official code computes the per-component divergence in a "lossy"
# form. The mean part is measured as if both Gaussians had a fixed variance $L$, and the variance
# part with an offset $o$ added to both variances:
#
# $$
# d^{L}_j = \frac{\|\mu - m_j\|^2}{2L}
# + D_{\mathrm{KL}}\big(\mathcal N(0, \sigma^2 + o) \,\big\|\, \mathcal N(0, s_j^2 + o)\big) .
# $$ (eq-mdl-lossy)
#
# This is the relative entropy between two product Gaussians, $\mathcal N(\mu, L I) \otimes
# \mathcal N(0, \sigma^2 + o)$ and $\mathcal N(m_j, L I) \otimes \mathcal N(0, s_j^2 + o)$, so
# {prf:ref}`mdl-prop-variational` holds with $d_j$ replaced by $d^L_j$: $-\log\sum_j \alpha_j
# e^{-d^L_j}$ bounds the divergence to the mixture of those product Gaussians, and its gradient
# is the same attention. A large $L$ makes the pull towards the centres gentle, so latents far
# from every centre are "quantised" towards them rather than charged their full distance. The
# M-step changes in one place: the mean part has a fixed variance, so the variance target is the
# $\gamma$-weighted mean of the encoder variances $\sigma_i^2$ alone, without the spread of the
# means, which is what the official code averages. CDVIB uses the same lossy form without the
# offset, at its nearest centre (chosen by the exact divergence).
#
# ```{note}
# **Where this chapter departs from the paper and its official code.** Settings we share with the
# official code: a stochastic Gaussian encoder whose standard deviation is `softplus(raw - 5)`;
# Adam with betas $(0.5, 0.999)$ and a learning rate that decays by $0.97$ per epoch; the lossy
# CDVIB and GM regularisers {eq}`eq-mdl-lossy` with $L = 4$, $o = 0.5$; CDVIB's centres moved at
# rate $\eta M n_{cj}$ (with $\eta = 10^{-2}$ and $n_{cj}$ the examples assigned in the batch);
# the GM prior's separate moving-average rates $\eta_m = \eta_\alpha = 10^{-2}$,
# $\eta_s = 5 \cdot 10^{-4}$, applied to a class only when its batch mass exceeds 4, with a
# Gaussian noise of standard deviation $0.2/\sqrt K$ added to the means at every step;
# accuracy averaged over 12 draws of the latent. What remains different:
# * **Data.** CIFAR-10 or INTEL (tens of thousands of images) there; here scikit-learn's
#   bundled 8×8 digits, 100 training, 300 validation and 1,397 test images per replicate, with
#   30% of the labels (in every split) replaced by a uniformly random digit. The label noise
#   gives the network wrong labels to memorise, and so a regulariser more to remove; with clean
#   labels the unregularised network is already close to what these 100 images allow, and the
#   room for any regulariser is smaller (Try it shows how to check).
# * **Model and schedule.** CNN4 or ResNet encoders, $K = 64$, 200 epochs of 391 batches of 128
#   at learning rate $10^{-4}$ there; here a two-layer ReLU network (64 units), $K = 32$,
#   $M = 3$, 32 epochs of 4 batches of 25 at $3 \cdot 10^{-3}$ (the `paper` preset: $K = 64$,
#   $M = 5$, 200 epochs), in float32. The prior's per-step rates are the official ones, so over
#   our steps the GM means cover {glue:}`cover_mean` of the way to their targets and the
#   variances {glue:}`cover_var` (printed after training); over the official 78,000 steps both
#   converge.
# * **Update gate.** The official GM prior moves a class only when the class has a mass above
#   4 in a batch of 128; we scale the gate to our batch ($4 \cdot 25 / 128$), so that a class
#   present in the batch is updated, as it is almost always at the official batch size.
# * **GM regulariser.** The official loss is $25 \times$ the average of two approximations, the
#   lossy variational one and a "product" one, $-h(p) - \log \sum_j \alpha_j \mathbb E_p[q_j]$
#   with both variances set to $L$. We keep the variational one alone, unscaled, because it is
#   the one the bound and the attention derive from; the product approximation is a *lower*
#   bound on the relative entropy (by Jensen), which the control `product-approx` shows. The
#   factor 25 shifts GM's $\beta$ scale by about 1.4 decades, which the wide grid covers.
# * **GM attention in the updates.** The official means move with a 2:1 mix of the lossy-KL
#   attention and the product one, the weights with a 1:1 mix; we use the lossy-KL attention
#   {eq}`eq-mdl-var` for all three, as the M-step derivation gives.
# * **Re-seeding.** The official code re-seeds, once per epoch, components whose weight falls
#   below $1/(100M)$, classes where one weight exceeds $0.95$, and all centres when they bunch
#   up, with noise scaled by the mean latent-to-centre distance. We re-seed only the first kind,
#   at every step, near the class's heaviest component.
# * **Initialisation.** Both start the centres on latents of training examples of their class
#   ("scattered"), variances 1, weights $1/M$; the official code draws them from its own batch
#   loop and initialises the network with its Xavier routine, we with Glorot-scaled normals.
# * **Units and selection.** The official losses are in bits and every $\beta$ is reported; we
#   use nats (the same ratio of the two terms) and choose each method's $\beta$ on the
#   validation split, then report its test accuracy. The unregularised network, which has no
#   $\beta$, is trained once per grid value and its copy best on validation is kept, so that
#   every method is the best of the same number of trained networks.
# * **A fifth arm.** Beside the paper's methods we train GM-frozen: GM's regulariser against a
#   prior that keeps its initial table, to see whether learning the prior is what helps.
# * **The MDL term we measure.** The bound needs a symmetric prior. After training we fit, for
#   each network, a per-class mixture by EM (full steps of {eq}`eq-mdl-em`, exact divergence) to
#   the pooled latents of the $n$ training examples and $n$ test examples, and report the average
#   of $D_{\mathrm{var}}$ over those $2n$ examples, an upper bound on the per-example relative
#   entropy to that prior. The same estimator is applied to every network.
# ```
#
# ## The algorithm
#
# The parameters: the data split, the network, the regularisers' constants, the grid of $\beta$
# and the number of independent replicates (each replicate draws a new split, new label noise
# and new initial weights; all methods share them within a replicate).

# %% tags=["parameters"]
seed = 0
device = "cpu"  # "cpu", "cuda" or "auto"
control = "none"  # or a deliberately wrong variant named in controls.yaml
n_train = 100  # training images per replicate
n_val = 300  # validation images per replicate (for choosing beta)
label_noise = 0.3  # share of labels replaced by a uniformly random digit
hidden = 64  # width of the encoder's two hidden layers
latent_dim = 32  # K
n_components = 3  # M, mixture components (and CDVIB centres) per class
betas = [1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0]  # regularisation weights
epochs = 32
batch_size = 25
learning_rate = 3e-3
lr_decay = 0.97  # per epoch
rate_mean = 1e-2  # GM prior's moving-average rates (official values)
rate_weight = 1e-2
rate_var = 5e-4
lossy_variance = 4.0  # L of eq-mdl-lossy
lossy_offset = 0.5  # o of eq-mdl-lossy
centre_noise = 0.2  # std of the noise added to GM means per step, times 1/sqrt(K)
test_samples = 12  # latent draws per example when measuring accuracy
mdl_em_iters = 10  # EM steps of the symmetric prior fitted after training
n_replicates = 20  # independent splits, batched
progress = False  # a progress bar over epochs (on in paper.yaml)

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
import time

import numpy as np
import torch
from matplotlib.ticker import LogLocator, NullFormatter
from myst_nb import glue
from scipy.stats import spearmanr
from sklearn.datasets import load_digits

control = lib.check_control("mdl-representation-generalization", control)
lib.check_int("seed", seed, low=0, high=2**32 - 1)
lib.check_choice("device", device, ["auto", "cpu", "cuda"])
lib.check_int("n_train", n_train, low=50, high=1000)
lib.check_int("n_val", n_val, low=50, high=1797 - 100 - n_train)
lib.check_float("label_noise", label_noise, low=0.0, high=0.9)
lib.check_int("hidden", hidden, low=1, high=4096)
lib.check_int("latent_dim", latent_dim, low=1, high=1024)
lib.check_int("n_components", n_components, low=1, high=5)
lib.check_float_list("betas", betas, low=0.0, low_open=True, min_len=3, increasing=True)
lib.check_int("epochs", epochs, low=1)
lib.check_int("batch_size", batch_size, low=10, high=n_train)
lib.check_float("learning_rate", learning_rate, low=0.0, low_open=True)
lib.check_float("lr_decay", lr_decay, low=0.0, high=1.0, low_open=True)
for name, rate in (
    ("rate_mean", rate_mean),
    ("rate_weight", rate_weight),
    ("rate_var", rate_var),
):
    lib.check_float(name, rate, low=0.0, high=1.0, low_open=True)
lib.check_float("lossy_variance", lossy_variance, low=0.0, low_open=True)
lib.check_float("lossy_offset", lossy_offset, low=0.0)
lib.check_float("centre_noise", centre_noise, low=0.0)
lib.check_int("test_samples", test_samples, low=1, high=1000)
lib.check_int("mdl_em_iters", mdl_em_iters, low=1)
lib.check_int("n_replicates", n_replicates, low=3)
lib.check_bool("progress", progress)
n_models = n_replicates * 5 * len(betas)
largest = n_models * 1797 * max(hidden, 2 * latent_dim)
if 8 * largest > 4e9:
    raise ValueError(
        f"the run would need about {8 * largest / 1e9:.0f} GB for one array: reduce "
        "`n_replicates`, `betas`, `hidden` or `latent_dim`"
    )
rng, device = lib.setup(seed, device)
torch.set_default_dtype(torch.float64)

# %% [markdown]
# **The data.** scikit-learn ships the 1,797 8×8 digit images of the UCI collection. Each
# replicate draws its own split into training, validation and test images and replaces a share
# `label_noise` of the labels in every split by a uniformly random digit; the test images keep
# their clean labels too. A network that memorises its training labels also memorises the wrong
# ones, and the clean test labels measure what that costs.

# %%
digits, digit_labels = load_digits(return_X_y=True)
n_classes, input_dim = 10, digits.shape[1]
order = np.argsort(rng.random((n_replicates, len(digits))), axis=1)
splits = np.split(order, [n_train, n_train + n_val], axis=1)


def noisy(y):
    flip = rng.random(y.shape) < label_noise
    return np.where(flip, rng.integers(n_classes, size=y.shape), y)


def tensors(index, labels):
    x = torch.tensor(digits[index] / 16.0, device=device, dtype=torch.float32)
    return x, torch.tensor(labels, device=device)


(x_train, y_train), (x_val, y_val), (x_test, y_test) = (
    tensors(s, noisy(digit_labels[s])) for s in splits
)
y_test_clean = torch.tensor(digit_labels[splits[2]], device=device)
METHODS = ("none", "VIB", "CDVIB", "GM", "GM-frozen")
methods = [m for m in METHODS for _ in betas]
method_beta = [0.0] * len(betas) + [b for _ in range(4) for b in betas]
G = len(methods)
n_test = x_test.shape[1]
print(f"{n_train} train / {n_val} validation / {n_test} test images per replicate")
print(f"{n_replicates} replicates x {G} (method, beta) pairs = {n_models} networks")


# %% [markdown]
# **The networks.** All `n_replicates` × 5 × len(`betas`) networks are trained at once:
# every weight has a leading replicate axis `r` and a method axis `g`, and the losses are summed.
# Adam acts element by element, so the sum trains each network exactly as if it were alone.
# Within a replicate every network starts from the same initial weights (common random numbers:
# the paired differences between methods then measure the regularisers, not the luck of two
# initialisations); the latent noise of each network is its own. The encoder outputs a mean and a standard deviation (`softplus(raw - 5)`, small at the start); the
# decoder is linear. Under the control `encoder-blind` the encoder ignores its input and outputs
# $\mathcal N(0, I)$.

# %%
def init_networks(R, G):
    def weight(fan_in, fan_out):
        scale = math.sqrt(2.0 / (fan_in + fan_out))
        w = scale * torch.randn(R, 1, fan_in, fan_out, device=device)
        return w.repeat(1, G, 1, 1).requires_grad_()

    def bias(width):
        return torch.zeros(R, G, 1, width, device=device, requires_grad=True)

    sizes = [(input_dim, hidden), (hidden, hidden), (hidden, 2 * latent_dim)]
    layers = [p for a, b in sizes for p in (weight(a, b), bias(b))]
    return layers + [weight(latent_dim, n_classes), bias(n_classes)]


def encode(net, x):
    """x[r, n, D] -> mean and std [r, g, n, K] of the Gaussian latent."""
    h = torch.relu(x[:, None] @ net[0] + net[1])
    h = torch.relu(h @ net[2] + net[3])
    mean, raw = (h @ net[4] + net[5]).split(latent_dim, dim=-1)
    std = torch.nn.functional.softplus(raw - 5)
    if control == "encoder-blind":
        return 0 * mean, 1 + 0 * std
    return mean, std


def decode(net, u):
    return u @ net[6] + net[7]


# %% [markdown]
# **The divergences.** `kl_gauss` is the closed-form relative entropy between diagonal Gaussians.
# `component_divergence` is the $d_j$ of {prf:ref}`mdl-prop-variational`; under the control
# `product-approx` it is replaced by the official code's product approximation,
# $-h(p) - \log \mathbb E_p[q_j]$. `lossy` is $d^L_j$ of {eq}`eq-mdl-lossy`. `mixture_scores`
# gives $\log\alpha_j - d_j$, so that `-logsumexp` of it is $D_{\mathrm{var}}$ and its softmax
# the attention $\gamma$.

# %%
def kl_gauss(mean, var, m, s2):
    """KL(N(mean, var) || N(m, s2)), diagonal Gaussians, summed over the last axis."""
    return 0.5 * (torch.log(s2 / var) + (var + (mean - m) ** 2) / s2 - 1).sum(-1)


def component_divergence(mean, var, m, s2):
    if control == "product-approx":  # -h(p) - log E_p[q]: a lower bound on the KL
        total = var + s2
        return 0.5 * (torch.log(total / var) + (mean - m) ** 2 / total - 1).sum(-1)
    return kl_gauss(mean, var, m, s2)


def lossy(divergence, mean, var, m, s2, offset):
    """d^L of eq-mdl-lossy: means at the fixed variance L, variances offset by o."""
    fixed = torch.full_like(mean, lossy_variance)
    zero = torch.zeros_like(var)
    return divergence(mean, fixed, m, fixed) + divergence(
        zero, var + offset, zero, s2 + offset
    )


def mixture_scores(log_weights, d):
    """log(alpha_j) - d_j; D_var = -logsumexp(scores), attention = softmax(scores)."""
    return log_weights - d


def own_class(table, y):
    """table[r, g, C, M, ...] -> the rows of each example's class, [r, g, n, M, ...]."""
    R, G = table.shape[:2]
    index = y[:, None, :].expand(R, G, -1)
    index = index.reshape(R, G, -1, *([1] * (table.dim() - 3)))
    return torch.gather(table, 2, index.expand(R, G, -1, *table.shape[3:]))


# %% [markdown]
# Before training anything, two checks of {prf:ref}`mdl-prop-variational` on random Gaussians
# and mixtures: $D_{\mathrm{var}}$ is above a Monte Carlo estimate of the true relative entropy,
# and autograd's gradient of $D_{\mathrm{var}}$ in $\mu$ equals the attention-weighted sum
# $\sum_j \gamma_j (\mu - m_j)/s_j^2$.

# %%
def check_variational_bound(n_pairs=64, n_mc=20000, K=3, M=4):
    g = torch.Generator(device="cpu").manual_seed(seed)
    mu = torch.randn(n_pairs, K, generator=g, requires_grad=True)
    var = 0.2 + torch.rand(n_pairs, K, generator=g)
    m = 1.5 * torch.randn(n_pairs, M, K, generator=g)
    s2 = 0.2 + torch.rand(n_pairs, M, K, generator=g)
    alpha = torch.softmax(torch.randn(n_pairs, M, generator=g), -1)
    d = component_divergence(mu[:, None], var[:, None], m, s2)
    score = mixture_scores(torch.log(alpha), d)
    bound = -torch.logsumexp(score, -1)
    gamma = torch.softmax(score, -1)
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
print(f"mean looseness of the bound: {mean_gap:.1f} nats")
print(f"autograd vs attention-weighted gradient, max relative error: {grad_error:.0e}")
torch.set_default_dtype(torch.float32)  # the checks in float64, the networks in float32


# %% [markdown]
# **The priors.** Each network carries a prior table: weights `[r, g, C, M]`, means and variances
# `[r, g, C, M, K]`. They start "scattered": each class's components sit on the latents of
# random training examples of that class, with unit variances and equal weights.

# %%
def pick(rng, pool, n):
    """n_components distinct members of pool (any examples if the class is too rare)."""
    if pool.size < n_components:
        pool = np.arange(n)
    return rng.choice(pool, n_components, replace=False)


def init_prior(mean, y, rng):
    R, G = mean.shape[:2]
    picks = np.stack(
        [
            np.stack([pick(rng, np.flatnonzero(y_r == c), len(y_r)) for c in range(10)])
            for y_r in y.cpu().numpy()
        ]
    )  # [r, C, M]
    index = torch.tensor(picks, device=device).reshape(R, 1, -1, 1)
    means = torch.gather(mean, 2, index.expand(R, G, -1, latent_dim))
    means = means.reshape(R, G, n_classes, n_components, latent_dim).clone()
    weights = torch.full(means.shape[:-1], 1 / n_components, device=device)
    return weights, means, torch.ones_like(means)


# %% [markdown]
# The prior updates. `batch_targets` computes the M-step targets {eq}`eq-mdl-em` of the lossy
# divergence (weighted means of $\mu_i$ and of $\sigma_i^2$) from a batch and its assignment
# $\gamma$. CDVIB moves its nearest centres at the official rate $\eta M n_{cj}$; GM moves its
# means, weights and variances at their own rates, adds the small noise to the means and
# re-seeds dead components. Under the control `prior-frozen` the GM prior stays at its start.

# %%
def batch_targets(mean, var, y, gamma):
    onehot = torch.nn.functional.one_hot(y, n_classes).to(mean.dtype)  # [r, n, C]
    w = onehot[:, None, :, :, None] * gamma[:, :, :, None, :]  # [r, g, n, C, M]
    mass = w.sum(2)  # N_cj, [r, g, C, M]
    denom = mass[..., None].clamp_min(1e-12)
    m_hat = torch.einsum("rgncm,rgnk->rgcmk", w, mean) / denom
    v_hat = torch.einsum("rgncm,rgnk->rgcmk", w, var) / denom
    return mass, m_hat, v_hat


def cdvib_update(prior, mass, m_hat, v_hat):
    weights, means, variances = prior
    rate = (1e-2 * n_components * mass[..., None]).clamp(max=1.0)
    seen = mass[..., None] > 0
    means = torch.where(seen, means + rate * (m_hat - means), means)
    variances = torch.where(seen, variances + rate * (v_hat - variances), variances)
    return weights, means, variances


gate = 4 * batch_size / 128  # the official mass > 4 at batch 128, scaled to our batch


def gm_update(prior, mass, m_hat, v_hat):
    weights, means, variances = prior
    active = mass.sum(-1, keepdim=True) > gate  # the class's mass in the batch
    seen = (mass > 1e-3) & active
    means = torch.where(seen[..., None], means + rate_mean * (m_hat - means), means)
    noise = centre_noise / math.sqrt(latent_dim) * torch.randn_like(means)
    means = means + noise * active[..., None]
    variances = torch.where(
        seen[..., None], variances + rate_var * (v_hat - variances), variances
    )
    a_hat = mass / mass.sum(-1, keepdim=True).clamp_min(1e-12)
    weights = torch.where(active, weights + rate_weight * (a_hat - weights), weights)
    dead = weights < 1 / (100 * n_components)
    best = weights.argmax(-1, keepdim=True)[..., None].expand_as(means[..., :1, :])
    jitter = 0.1 * torch.randn_like(means)
    means = torch.where(dead[..., None], torch.gather(means, 3, best) + jitter, means)
    weights = torch.where(dead, torch.full_like(weights, 1 / n_components), weights)
    return weights / weights.sum(-1, keepdim=True), means, variances


# %% [markdown]
# **Training.** One loss {eq}`eq-mdl-loss` for all methods: each network's regulariser is chosen
# by its method, then the priors take one moving-average step on the (detached) latents of that
# batch. The controls that zero a regulariser set the corresponding $\beta$ to 0.

# %%
def block(*names):
    """The networks of the named, adjacent methods: a slice of the g axis."""
    first = METHODS.index(names[0]) * len(betas)
    return slice(first, first + len(names) * len(betas))


def vib_divergence(mean, var, m, s2, offset=None):
    """VIB's KL to N(0, I); under `vib-offset`, GM's lossy form of it (offset o)."""
    if offset is None:
        return kl_gauss(mean, var, m, s2)
    return lossy(kl_gauss, mean, var, m, s2, offset)


def regularisation_weights():
    beta = torch.tensor(method_beta, device=device)[None, :]
    zeroed = {
        "regularisers-zeroed": ("VIB", "CDVIB", "GM", "GM-frozen"),
        "prior-zeroed": ("GM", "GM-frozen"),
    }
    if control in zeroed:
        beta[:, block(*zeroed[control])] = 0.0
    return beta


def train(rng):
    R = n_replicates
    vib, cd, gm = block("VIB"), block("CDVIB"), block("GM")
    gm_both = block("GM", "GM-frozen")
    net = init_networks(R, G)
    beta = regularisation_weights()
    gate_passes = torch.zeros((), device=device)
    with torch.no_grad():
        prior = init_prior(encode(net, x_train)[0], y_train, rng)
    if control == "gm-standard-prior":  # every component N(0, I), never updated
        prior = (prior[0], torch.zeros_like(prior[1]), torch.ones_like(prior[2]))
    initial_prior = prior
    optimiser = torch.optim.Adam(net, lr=learning_rate, betas=(0.5, 0.999), fused=True)
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimiser, gamma=lr_decay)
    steps = n_train // batch_size
    for _ in lib.progress(range(epochs), enabled=progress, desc="epochs"):
        order = np.argsort(rng.random((R, n_train)), axis=1)
        order = torch.tensor(order, device=device)
        for s in range(steps):
            rows = order[:, s * batch_size : (s + 1) * batch_size]
            x = torch.gather(x_train, 1, rows[..., None].expand(-1, -1, input_dim))
            y = torch.gather(y_train, 1, rows)
            mean, std = encode(net, x)
            var = std**2
            u = mean + std * torch.randn_like(std)
            log_p = torch.log_softmax(decode(net, u), -1)
            index = y[:, None, :, None].expand(R, G, -1, 1)
            cross_entropy = -torch.gather(log_p, -1, index)[..., 0].mean(-1)  # [r, g]
            weights, means, variances = prior
            mu_, var_ = mean[..., None, :], var[..., None, :]
            m, s2 = own_class(means[:, cd], y), own_class(variances[:, cd], y)
            nearest = kl_gauss(mu_[:, cd], var_[:, cd], m, s2).argmin(-1, keepdim=True)
            d_cd = lossy(kl_gauss, mu_[:, cd], var_[:, cd], m, s2, 0.0)
            m, s2 = own_class(means[:, gm_both], y), own_class(variances[:, gm_both], y)
            mu_gm, var_gm = mu_[:, gm_both], var_[:, gm_both]
            d_gm = lossy(component_divergence, mu_gm, var_gm, m, s2, lossy_offset)
            score = mixture_scores(torch.log(own_class(weights[:, gm_both], y)), d_gm)
            unit = torch.ones_like(var[:, vib])
            offset = lossy_offset if control == "vib-offset" else None
            regulariser = torch.cat(
                [
                    torch.zeros_like(mean[:, block("none"), :, 0]),
                    vib_divergence(mean[:, vib], var[:, vib], 0 * unit, unit, offset),
                    torch.gather(d_cd, -1, nearest)[..., 0],  # CDVIB: nearest centre
                    -torch.logsumexp(score, -1),  # GM and GM-frozen: lossy D_var
                ],
                dim=1,
            ).mean(-1)  # [r, g], in the order of METHODS
            loss = (cross_entropy + beta * regulariser).sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            with torch.no_grad():
                hard = torch.nn.functional.one_hot(nearest[..., 0], n_components)
                targets = batch_targets(mean[:, cd], var[:, cd], y, hard.to(mean.dtype))
                new_cd = cdvib_update([p[:, cd] for p in prior], *targets)
                attention = torch.softmax(score[:, : len(betas)], -1)  # GM's rows
                targets = batch_targets(mean[:, gm], var[:, gm], y, attention)
                gate_passes += (targets[0].sum(-1) > gate).double().mean()
                new_gm = gm_update([p[:, gm] for p in prior], *targets)
                if control in ("prior-frozen", "gm-standard-prior"):
                    new_gm = [p[:, gm] for p in prior]
                prior = tuple(p.clone() for p in prior)  # GM-frozen keeps its own
                for p, c, g in zip(prior, new_cd, new_gm):
                    p[:, cd], p[:, gm] = c, g
        schedule.step()
    return net, prior, initial_prior, gate_passes.item()


# %% [markdown]
# **Measurements.** Accuracy averages over `test_samples` draws of each latent. The empirical MDL
# term fits a symmetric prior (per class, $M$ components) by full EM steps to the pooled latents
# of the training set and of `n_train` test examples, then averages $D_{\mathrm{var}}$ (exact
# divergence) over those $2n$ examples.

# %%
@torch.no_grad()
def accuracy(net, x, labels):
    mean, std = encode(net, x)
    hits = torch.zeros(len(labels), *mean.shape[:2], device=device)
    for _ in range(test_samples):
        noise = torch.randn(mean.shape[0], 1, *mean.shape[2:], device=device)
        u = mean + std * noise  # one draw shared by the networks of a replicate
        guess = decode(net, u).argmax(-1)
        hits += torch.stack([(guess == y[:, None]).double().mean(-1) for y in labels])
    return (hits / test_samples).cpu().numpy()  # [labels, r, g]


@torch.no_grad()
def empirical_mdl(net, x, y, rng):
    mean, std = encode(net, x)
    var = std**2
    weights, means, variances = init_prior(mean, y, rng)
    onehot = torch.nn.functional.one_hot(y, n_classes).to(mean.dtype)
    for _ in range(mdl_em_iters):
        m, s2 = own_class(means, y), own_class(variances, y)
        d = kl_gauss(mean[..., None, :], var[..., None, :], m, s2)
        gamma = torch.softmax(torch.log(own_class(weights, y)) - d, -1)
        w = onehot[:, None, :, :, None] * gamma[:, :, :, None, :]
        mass = w.sum(2)
        denom = mass[..., None].clamp_min(1e-12)
        means = torch.einsum("rgncm,rgnk->rgcmk", w, mean) / denom
        second = torch.einsum("rgncm,rgnk->rgcmk", w, var + mean**2) / denom
        variances = (second - means**2).clamp_min(1e-6)
        weights = (mass / mass.sum(-1, keepdim=True).clamp_min(1e-12)).clamp_min(1e-12)
    m, s2 = own_class(means, y), own_class(variances, y)
    d = kl_gauss(mean[..., None, :], var[..., None, :], m, s2)
    d_var = -torch.logsumexp(torch.log(own_class(weights, y)) - d, -1)
    return d_var.clamp_min(0.0).mean(-1)  # D_var >= 0; rounding can dip below


# %% [markdown]
# ## The experiment
#
# All networks train together; then we measure accuracy on the training labels, on the noisy
# validation and test labels, and on the clean test labels, the generalization gap (training
# minus noisy test accuracy, two samples of one distribution, as in
# {prf:ref}`mdl-def-setting`) and the empirical MDL term.

# %%
start = time.time()
net, prior, initial_prior, gate_passes = train(rng)
(train_acc,) = accuracy(net, x_train, [y_train])
(val_acc,) = accuracy(net, x_val, [y_val])
test_acc, clean_acc = accuracy(net, x_test, [y_test, y_test_clean])
gap = train_acc - test_acc
pooled_x = torch.cat([x_train, x_test[:, :n_train]], 1)
pooled_y = torch.cat([y_train, y_test[:, :n_train]], 1)
mdl = empirical_mdl(net, pooled_x, pooled_y, rng).cpu().numpy()
print(f"{time.time() - start:.0f} s wall-clock")
n_steps = epochs * (n_train // batch_size)
rates = {"mean": rate_mean, "var": rate_var}
cover = {k: 1 - (1 - rate) ** gate_passes for k, rate in rates.items()}
print(
    f"GM prior updated for a class on {gate_passes:.0f} of {n_steps} steps "
    f"(on average): means {cover['mean']:.0%}, variances {cover['var']:.0%} "
    "of the way to their targets"
)
glue("gate_passes", f"{gate_passes:.0f}", display=False)
glue("n_steps", n_steps, display=False)
for k, c in cover.items():
    glue(f"cover_{k}", f"{c:.0%}", display=False)


def mean_se(a, axis=0):
    return a.mean(axis), a.std(axis, ddof=1) / math.sqrt(a.shape[axis])


none_cols = [g for g in range(G) if methods[g] == "none"]
regularised = [g for g in range(G) if methods[g] != "none"]
setting_names = ["none"] + [methods[g] for g in regularised]
setting_betas = [0.0] + [method_beta[g] for g in regularised]


def by_setting(a):
    """[r, g] -> [r, setting]: the unregularised copies averaged into one setting."""
    none_mean = a[:, none_cols].mean(1, keepdims=True)
    return np.concatenate([none_mean, a[:, regularised]], 1)


header = ("method", "beta", "train", "val", "clean test", "gap")
print("{:>9} {:>6} {:>5} {:>5} {:>10} {:>5}".format(*header))
table = [by_setting(a).mean(0) for a in (train_acc, val_acc, clean_acc, gap)]
for i, (name, beta) in enumerate(zip(setting_names, setting_betas)):
    tr, va, cl, ga = (column[i] for column in table)
    print(f"{name:>9} {beta:6.0e} {tr:5.2f} {va:5.2f} {cl:10.2f} {ga:5.2f}")
print(f"(none: the mean of its {len(none_cols)} copies)")

# %% [markdown]
# Each method's $\beta$ is the one with the highest mean validation accuracy over replicates;
# the regularised methods get the same grid, so the selection favours none of them, and the test
# images play no part in it. The unregularised network is trained as many times as the grid has
# values (each copy draws its own latent noise) and its copy best on validation is
# kept, so it gets the same selection budget as each regulariser. Comparisons are paired: the
# same replicate's split, label noise, initial weights and data order for every method.

# %%
COLOURS = {"none": "0.4", "VIB": "C0", "CDVIB": "C1", "GM": "C2", "GM-frozen": "C4"}
MARKERS = {"none": "x", "VIB": "o", "CDVIB": "s", "GM": "^", "GM-frozen": "v"}


def columns(name):
    return [g for g in range(G) if methods[g] == name]


def tuned_column(name):
    cols = columns(name)
    return cols[int(val_acc[:, cols].mean(0).argmax())]


tuned = {name: tuned_column(name) for name in METHODS}
clean_none = clean_acc[:, tuned["none"]]
for name, g in list(tuned.items())[1:]:
    m, se = mean_se(clean_acc[:, g] - clean_none)
    print(
        f"{name:>9}: tuned beta {method_beta[g]:g}, clean test accuracy "
        f"{clean_acc[:, g].mean():.2f}, minus none's {m:+.3f} ± {se:.3f}"
    )
gain = {
    rival: clean_acc[:, tuned["GM"]] - clean_acc[:, tuned[rival]]
    for rival in ("VIB", "CDVIB", "GM-frozen")
}
for rival, d in gain.items():
    m, se = mean_se(d)
    print(f"GM - {rival} at tuned beta: {m:+.3f} ± {se:.3f}")
m, se = mean_se(gain["GM-frozen"])
frozen_verdict = "level with"
if abs(m) > 2 * se:
    frozen_verdict = "behind" if m > 0 else "ahead of"
print(f"GM-frozen ends {frozen_verdict} GM (paired mean ± 2 s.e.)")
glue("frozen_verdict", frozen_verdict, display=False)
at_edge = [name for name in ("VIB", "CDVIB") if method_beta[tuned[name]] == betas[0]]
rivals_at_edge = {
    0: "neither rival is",
    1: f"{at_edge[0] if at_edge else ''} is",
    2: "both rivals are",
}[len(at_edge)] + f" tuned at the grid's smallest beta, {betas[0]:g}"
print(rivals_at_edge)
glue("rivals_at_edge", rivals_at_edge.replace("beta", "β"), display=False)
for name, g in list(tuned.items())[1:]:
    glue(f"beta_{name}", f"{method_beta[g]:g}", display=False)
    lift_g = (clean_acc[:, g] - clean_none).mean()
    glue(f"lift_{name}", f"{lift_g:+.3f}", display=False)
for rival, d in gain.items():
    key = "gain_" + rival.replace("-", "_")
    glue(key, f"{d.mean():+.3f} ± {mean_se(d)[1]:.3f}", display=False)
glue("acc_none", f"{clean_none.mean():.2f}", display=False)
glue("train_none", f"{train_acc[:, tuned['none']].mean():.2f}", display=False)
glue("n_test", n_test, display=False)
glue("n_reps", n_replicates, display=False)

# %% [markdown]
# {numref}`fig-mdl-representation-generalization-accuracy` shows the clean test accuracy along
# the grid. Every regulariser is harmless at the small end of the grid and costly at the large
# end; the open markers show where the validation split puts each method's $\beta$, and the
# band is the unregularised network's mean ± one standard error.

# %% mystnb={"figure": {"caption": "Clean test accuracy against the regularisation weight \u03b2 for VIB, CDVIB and the Gaussian-mixture prior (mean \u00b1 one standard error over replicates); the dashed line is the unregularised network, the open markers each method's \u03b2 chosen on the validation split.", "name": "fig-mdl-representation-generalization-accuracy"}} tags=["hide-input"]
fig, ax = lib.subplots()
for name in METHODS[1:]:
    m, se = mean_se(clean_acc[:, columns(name)])
    ax.errorbar(
        betas,
        m,
        yerr=se,
        marker=MARKERS[name],
        color=COLOURS[name],
        capsize=3,
        label=name,
    )
    g = tuned[name]
    ax.plot(
        method_beta[g],
        clean_acc[:, g].mean(),
        marker="o",
        markersize=14,
        markerfacecolor="none",
        color=COLOURS[name],
    )
m0, se0 = mean_se(clean_none)
ax.axhline(m0, color=COLOURS["none"], linestyle="--", label="no regulariser")
ax.axhspan(m0 - se0, m0 + se0, color=COLOURS["none"], alpha=0.15)
ax.set_xscale("log")
ax.set_xlabel("regularisation weight β")
ax.set_ylabel("clean test accuracy (fraction correct)")
ax.legend()
lib.show(fig)

# %% [markdown]
# {numref}`fig-mdl-representation-generalization-mdl` puts the empirical MDL term beside the
# measured gap, one point per (method, $\beta$). The bound {eq}`eq-mdl-bound` says a small MDL
# forces a small gap; if the term is to guide the choice of $\beta$, it should also *order* the
# gaps of the settings.

# %% mystnb={"figure": {"caption": "Generalization gap (training minus test accuracy, both on noisy labels) against the empirical MDL term (nats per example), one point per method and \u03b2, averaged over replicates; larger markers are larger \u03b2.", "name": "fig-mdl-representation-generalization-mdl"}} tags=["hide-input"]
fig, ax = lib.subplots()
mdl_setting, gap_setting = by_setting(mdl).mean(0), by_setting(gap).mean(0)
for name in METHODS:
    cols = [i for i, n in enumerate(setting_names) if n == name]
    size = [25 + 12 * betas.index(setting_betas[i]) if i else 40 for i in cols]
    ax.scatter(
        mdl_setting[cols],
        gap_setting[cols],
        marker=MARKERS[name],
        s=size,
        color=COLOURS[name],
        label=name,
    )
ax.set_xscale("log")
ax.xaxis.set_major_locator(LogLocator(base=10, numticks=12))
ax.xaxis.set_minor_formatter(NullFormatter())
ax.set_xlabel("empirical MDL term (nats per example)")
ax.set_ylabel("generalization gap (accuracy)")
ax.legend()
lib.show(fig)

# %% [markdown]
# The ordering, measured by Spearman's rank correlation over all (method, $\beta$) settings
# (replicate means), and the bound's value:

# %%
with torch.no_grad():
    pooled_mean, pooled_std = encode(net, pooled_x)
    kl_standard = kl_gauss(
        pooled_mean,
        pooled_std**2,
        torch.zeros_like(pooled_mean),
        torch.ones_like(pooled_mean),
    )
kl_setting = by_setting(kl_standard.mean(-1).cpu().numpy()).mean(0)
rho = spearmanr(mdl_setting, gap_setting).statistic
rho_kl = spearmanr(kl_setting, gap_setting).statistic
print(f"Spearman rho with the gap over the {len(setting_names)} settings:")
print(f"  empirical MDL term {rho:+.2f}, KL to N(0, I) {rho_kl:+.2f}")
glue("rho", f"{rho:+.2f}", display=False)
glue("rho_kl", f"{rho_kl:+.2f}", display=False)
# eq-mdl-bound with MDL = 2n x (MDL term per example): the bound is 2 sqrt(term)
bound = 2 * np.sqrt(mdl.mean(0))
g_min = int(bound.argmin())
print(
    f"smallest bound: {bound[g_min]:.1f} "
    f"({methods[g_min]}, beta {method_beta[g_min]:g});"
    f" at GM's tuned beta: {bound[tuned['GM']]:.0f}"
)
glue("bound_min", f"{bound[g_min]:.1f}", display=False)
glue("bound_gm", f"{bound[tuned['GM']]:.0f}", display=False)
glue("mdl_gm", f"{mdl[:, tuned['GM']].mean():.0f}", display=False)


# %% [markdown]
# Two checks of the mixture prior itself. Its updates should *learn*: on the training latents of
# GM's tuned network, the lossy $D_{\mathrm{var}}$ under the learned prior should be below that
# under the prior it started from. And its regulariser should *compress*: at the largest
# $\beta$ the MDL term of GM's networks should be below the unregularised network's.

# %%
@torch.no_grad()
def gm_regulariser(prior_table):
    mean, std = encode(net, x_train)
    weights, means, variances = prior_table
    m, s2 = own_class(means, y_train), own_class(variances, y_train)
    d = lossy(
        component_divergence,
        mean[..., None, :],
        (std**2)[..., None, :],
        m,
        s2,
        lossy_offset,
    )
    score = mixture_scores(torch.log(own_class(weights, y_train)), d)
    return (-torch.logsumexp(score, -1)).mean(-1).cpu().numpy()  # [r, g]


g_gm = tuned["GM"]
learned = gm_regulariser(prior)[:, g_gm] - gm_regulariser(initial_prior)[:, g_gm]
g_top = columns("GM")[-1]
compression = mdl[:, g_top] - mdl[:, none_cols].mean(1)
for label, d in (
    ("learned - initial prior", learned),
    ("GM top beta - none", compression),
):
    m, se = mean_se(d)
    print(f"{label}: {m:+.2f} ± {se:.2f} nats per example")


# %% [markdown]
# ## What we reproduced
#
# Tolerances. The implementation checks have fixed limits: the bound must sit above the Monte
# Carlo estimate by more than $-3$ standard errors for every pair, and the two gradients must
# agree to $10^{-10}$ (float64). The accuracy comparisons are paired over the `n_replicates`
# replicates, with the standard error of the paired difference measured across them: "above"
# means mean $-$ 2 s.e. $> 0$, "below" mean $+$ 2 s.e. $< 0$. This holds for the comparison
# of GM with its two rivals too: their gains are small (printed above), and the shared
# initial weights and {glue:}`n_reps` replicates make the paired standard error a fraction of
# that. The bound is checked as a bound: its smallest value over all trained networks is
# compared with 1, the largest possible gap of the 0-1 loss.

# %%
def lower(a):
    m, se = mean_se(a)
    return m - 2 * se


def upper(a):
    m, se = mean_se(a)
    return m + 2 * se


claims = lib.Claims(
    "mdl-representation-generalization",
    paper="sefidgaran2025generalization",
    control=control,
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
    "< 1e-10" if grad_error < 1e-10 else f"{grad_error:.0e}",
    "a weighted attention emerges in the prior learning",
    grad_error < 1e-10,
    value=grad_error,
)
interior = betas[0] < method_beta[g_gm] < betas[-1]
lift = clean_acc[:, g_gm] - clean_none
claims.add(
    "Regularisation matters: GM at its tuned β is inside the grid and above the "
    "unregularised network tuned over as many copies, on clean test accuracy (paired "
    "mean − 2 s.e.)",
    f"β = {method_beta[g_gm]:g}: {lower(lift):+.3f}",
    "regularisers improve test accuracy (the paper's premise)",
    bool(interior and lower(lift) > 0),
    value=lower(lift),
)
rivals = ("VIB", "CDVIB")
gm_mean = min(gain[r].mean() for r in rivals)
gm_low = min(lower(gain[r]) for r in rivals)
claims.add(
    "At their tuned β the mixture prior's clean test accuracy is above both VIB's and "
    "CDVIB's (min over rivals of the paired gain's mean − 2 s.e.; its mean in "
    "brackets)",
    f"{gm_low:+.3f} ({gm_mean:+.3f})",
    "GM above VIB and CDVIB",
    gm_low > 0,
    value=gm_low,
)
claims.add(
    "The EM-like updates learn the prior: GM's lossy D_var on its training latents "
    "(tuned β) is lower under the learned prior than under its initial one (paired "
    "mean + 2 s.e.)",
    upper(learned),
    "- (an implementation check: EM lowers its own objective)",
    upper(learned) < 0,
    fmt="{:+.1f}",
)
claims.add(
    f"GM's regulariser compresses: at β = {betas[-1]:g} its empirical MDL term is "
    "below the unregularised network's (paired mean + 2 s.e.)",
    upper(compression),
    "- (a check of our regulariser, as for any of the three)",
    upper(compression) < 0,
    fmt="{:+.1f}",
)
claims.add(
    "The bound of eq. (eq-mdl-bound), 2 sqrt(MDL term per example), is non-vacuous "
    "(< 1) for at least one trained network",
    bound.min(),
    "non-vacuous bounds (paper's experiments, per our notes)",
    bound.min() < 1,
    fmt="{:.1f}",
    expect=False,
)
claims.report()

# %% [markdown]
# ```{controls-table}
# ```
#
# Run one control with `make run CHAPTER=mdl-representation-generalization CONTROL=prior-zeroed`
# (or any name in the table): the claims cell then names the control and fails if a claim it
# must flip still holds.
#
# ## How this compares with the paper
#
# | | Paper {cite:p}`sefidgaran2025generalization` | This chapter | Why they differ |
# |---|---|---|---|
# | Data | CIFAR-10, INTEL images (clean labels) | 8×8 digits: 100 training images, 30% random labels | one CPU minute; regularisation must matter, and label noise gives it room (Try it) |
# | Encoder | CNN4, ResNet18/50; $K = 64$, $M = 5$ | two-layer MLP (64 units); $K = 32$, $M = 3$ | scale |
# | Training | 200 epochs of batch 128, Adam $10^{-4}$ | 32 epochs of batch 25, Adam $3 \cdot 10^{-3}$; same betas, same decay | scale |
# | Sweep | 11 values of $\beta$ in $[10^{-5}, 1]$, 5 runs | 7 values in $[10^{-4}, 1]$, {glue:}`n_reps` replicates, $\beta$ tuned on validation; the unregularised network trained 7 times, its best copy on validation kept | time |
# | GM regulariser | $25 \times$ (product + lossy variational) / 2 | lossy variational {eq}`eq-mdl-lossy` | the form the bound derives |
# | Regularisation helps | the premise of the comparison | GM at its tuned $\beta$ above the best unregularised copy, {glue:}`lift_GM` (claim 3; seeds: {seeds}`3`) | |
# | GM vs VIB, CDVIB at tuned $\beta$ | GM higher (exact numbers not in our notes) | GM − VIB {glue:}`gain_VIB`, GM − CDVIB {glue:}`gain_CDVIB` (claim 4; seeds: {seeds}`4`; paper preset: {paper-preset}`4`) | VIB and CDVIB pay the full $-\log\sigma^2$ (`vib-offset`); not at the preset's 200 epochs |
# | Learned vs frozen prior | the prior is learned jointly with the encoder | GM − GM-frozen {glue:}`gain_GM_frozen` at tuned $\beta$ (printed, not a claim) | no setting found where learning matters |
# | MDL term vs gap | bounds reflect the encoder's simplicity | Spearman ρ {glue:}`rho`, KL to $\mathcal N(0, I)$ {glue:}`rho_kl` (printed, not a claim) | any complexity measure orders the gaps here |
# | Bound value | non-vacuous (per our notes) | smallest $2\sqrt{\text{term}}$ {glue:}`bound_min`: vacuous | simple bound form, our estimator |
#
# The regime matters more than any setting. With 30% of the labels replaced, the unregularised
# network still fits its training labels
# (training accuracy {glue:}`train_none` on the noisy labels) and pays for the wrong ones on
# the test set (clean accuracy {glue:}`acc_none`). A regulariser can still gain clean
# accuracy there: at their tuned
# $\beta$ the three regularisers change the clean test accuracy by {glue:}`lift_VIB` (VIB,
# $\beta =$ {glue:}`beta_VIB`), {glue:}`lift_CDVIB` (CDVIB, $\beta =$ {glue:}`beta_CDVIB`) and
# {glue:}`lift_GM` (GM, $\beta =$ {glue:}`beta_GM`). Each is measured against the
# unregularised copy best on validation among as many copies as the grid has values, so picking
# the best of several trained networks gives no method a head start: with every $\beta$ set to
# zero (`regularisers-zeroed`) GM's tuned column is one more unregularised network, and claim 3
# fails. The paper's ordering (GM above both class-independent VIB and hard-assignment CDVIB)
# is what claim 4 tests. The gains are small ({glue:}`lift_GM` for GM), within the few points
# the official plotting range suggests; the paired design (shared splits, labels, initial
# weights and data order) and {glue:}`n_reps` replicates are what make them measurable. Over
# seeds 0–9 claim 3 held on {seeds}`3:held` seeds (its lower bound {seeds}`3`) and claim 4 on
# {seeds}`4:held` ({seeds}`4`). The ordering is a property of this short schedule, not of the
# methods at every scale: the `paper` preset (the official sweep sizes: 11 values of $\beta$,
# $K = 64$, $M = 5$, 200 epochs, with 10 replicates; {paper-preset}`runtime`) gives claim 4
# {paper-preset}`4` (the lower bound, then the mean gain over the closer rival), so with six
# times the steps GM no longer beats both rivals, while claim 3 still holds there
# ({paper-preset}`3`).
#
# The controls and the fifth arm show what carries the ordering. With the mixture prior's
# regulariser zeroed (`prior-zeroed`) both GM arms fall back to the unregularised network and
# claims 3 and 4 fail. The prior does learn: its lossy $D_{\mathrm{var}}$ on the training latents
# falls below that under its initial table (claim 5, an implementation check: EM lowers its own
# objective, and only a prior that is never updated fails it), with the means
# {glue:}`cover_mean` and the variances {glue:}`cover_var` of the way to their targets after
# {glue:}`gate_passes` updates in {glue:}`n_steps` steps. But learning is not what helps
# accuracy: GM-frozen, the same regulariser against a prior that stays at its initialisation,
# ends {glue:}`frozen_verdict` GM at their tuned $\beta$ (GM − GM-frozen {glue:}`gain_GM_frozen`,
# judged at two standard errors). Nor are the centres or the classes: with every component of
# every class replaced by a fixed $\mathcal N(0, I)$ (`gm-standard-prior`) claims 3 and 4 still
# hold (the controls table). What helps is the lossy form itself: its means part is a gentle
# quadratic pull, $\lVert\mu - m_j\rVert^2 / 2L$, and its variances part, offset by $o$, barely
# penalises a small encoder variance, where VIB and CDVIB pay the full $-\log\sigma^2$. That
# penalty is what claim 4 measures. On this seed {glue:}`rivals_at_edge`, where a regulariser
# barely changes the network, so the rivals are in effect unregularised; given GM's offset
# (`vib-offset`), VIB is no longer below GM and claim 4 fails (the controls table). The paper credits the *learned*, data-dependent prior; we found no
# setting in which the learned prior beat the frozen one, so that comparison is printed rather
# than claimed. The paper column of claim 4 is the abstract's ordering of methods, which holds
# against the standard VIB and CDVIB; the abstract's reason for it is not what this experiment
# shows. Nor is it the divergence the bound derives: with the official code's product
# approximation in place of the variational bound (`product-approx`) claims 3 and 4 still hold
# on this seed (the controls table), so either form of the mixture regulariser gives the gain.
#
# The empirical MDL term follows the gap closely across the settings
# ({numref}`fig-mdl-representation-generalization-mdl`; Spearman ρ {glue:}`rho`): as $\beta$
# grows both fall, for every regulariser. That is not evidence for the MDL term in particular:
# the relative entropy to $\mathcal N(0, I)$, the mutual-information-type term the paper
# improves on, orders the gaps as well (ρ {glue:}`rho_kl`), because a larger $\beta$ shrinks
# every complexity measure and the gap together. So the ordering is printed, not claimed. Nor
# does the MDL term make the bound useful at this sample size. With
# $\mathrm{MDL} = 2n$ times the per-example term, {eq}`eq-mdl-bound` equals
# $2\sqrt{\text{term}}$, which is above 1 (vacuous for the 0-1 loss) for every trained network
# here; at GM's tuned $\beta$ the term is {glue:}`mdl_gm` nats per example and the bound
# {glue:}`bound_gm`. The term is dominated by the entropy of the encoder: a network that
# classifies well has small latent variances, hence a large relative entropy to any smooth
# prior. The paper reports non-vacuous values with its sharper bounds and its own estimator;
# we did not reproduce that. The check can see a non-vacuous bound when there is one: with
# the blind encoder of `encoder-blind` the latents of every example are the same
# $\mathcal N(0, I)$, the fitted prior matches them, the MDL term is zero and the check passes
# (the controls table), as it must for a network whose gap is zero.
#
# ## Try it
#
# * `-p label_noise=0.0`: clean labels, as in the paper. Compare each method's tuned $\beta$
#   with the ends of the grid, its accuracy with the unregularised network's, and the sign of
#   the Spearman ρ: does the MDL term still order the gaps?
# * `-p n_train=300`: three times the data. Does the gap shrink for every method, and the room
#   for a regulariser with it?
# * `-p n_components=1`: one learned Gaussian per class; GM and CDVIB then differ only in the
#   lossy offset and the update rates.
# * `-p control=prior-frozen` (or any control in the table): the claims cell names the
#   control and reports which claims it flips.
