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
# # A one-layer transformer learns to select the relevant group of variables
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`zhang2025transformer` (ICLR 2025). Question: the input is $D$ groups of $d$
# Gaussian variables and the label depends on one group only. Does a one-layer, one-head
# transformer trained by gradient descent from zero learn to *attend* to that group and ignore
# the others, and does the trained attention then make a new task on the same group learnable
# from $\tilde O(d + D)$ samples instead of the $\approx dD$ that logistic regression on all the
# variables needs? We train the model with hand-derived gradients on a population-like loss, watch
# the attention concentrate, then fine-tune its value vector on $4$ to $256$ samples of a new task
# against logistic regression. The defaults are $D = d = 8$, eight training runs of 600 steps and
# 32 downstream tasks; `make run CHAPTER=transformers-group-sparsity PRESET=paper` doubles $D$ and
# $d$ and trains longer ({paper-preset}`runtime` on two CPU cores).
# ```
#
# ## The question
#
# Group sparsity is the classical statistical model in which the variables come in groups and only
# a few groups matter {cite:p}`yuan2006model`: the group Lasso selects them with a penalty. A
# transformer has no penalty, but it has attention {cite:p}`vaswani2017attention`: each token decides how much to read from every
# other token. If the tokens are the groups, selecting a group is attending to a token, and a
# trained transformer might perform variable selection on its own.
#
# {cite:t}`zhang2025transformer` prove this for the smallest transformer that can do it: one layer,
# one head, trained by gradient descent on the population logistic loss. They show that (i) every
# token ends up attending to the relevant group, (ii) the value vector aligns with the true
# direction and ignores the positional part of the tokens, and (iii) a pre-trained model adapts to
# a *new* classification task on the same group with a sample complexity that grows with $d + D$,
# not with the $dD$ variables. We test all three at $D = d = 8$, where $dD = 64$ and $d + D = 16$.
#
# ## The setting and the theorem
#
# ```{prf:definition} Group-sparse classification
# :label: tgs-def-data
#
# The input is $X = [x_1, \dots, x_D] \in \mathbb R^{d \times D}$ with groups
# $x_j \overset{\text{iid}}{\sim} \mathcal N(0, \sigma_x^2 I_d)$. One group $j^\star$ is relevant,
# and for a unit vector $v^\star \in \mathbb R^d$ the label is
#
# $$
# y = \operatorname{sign}\langle x_{j^\star}, v^\star \rangle .
# $$ (eq-tgs-label)
# ```
#
# ```{prf:definition} Tokens and the one-layer transformer
# :label: tgs-def-model
#
# Let $p_1, \dots, p_D \in \mathbb R^D$ be orthonormal positional encodings. Token $j$ is the
# group with its position *concatenated*, $z_j = [x_j; p_j] \in \mathbb R^{m}$ with $m = d + D$,
# and $Z = [z_1, \dots, z_D]$. With a merged key-query matrix $W \in \mathbb R^{m \times m}$ and a
# value vector $v = [v_1; v_2]$ ($v_1 \in \mathbb R^d$, $v_2 \in \mathbb R^D$), the model is
#
# $$
# f(X; W, v) = \sum_{j=1}^D v^\top Z\, \mathrm{softmax}\big(Z^\top W z_j\big)
# = v^\top Z S \mathbf 1_D, \qquad
# S_{ij} = \frac{e^{z_i^\top W z_j}}{\sum_{k} e^{z_k^\top W z_j}} ,
# $$ (eq-tgs-model)
#
# so $S_{ij}$ is the attention that token $j$ pays to token $i$, and each column of $S$ sums to one.
# It is trained on the logistic loss $L(W, v) = \mathbb E\, \log\big(1 + e^{-y f(X; W, v)}\big)$
# by gradient descent from $W = 0$, $v = 0$ with step size $\eta$.
# ```
#
# ```{prf:theorem} Variable selection by gradient descent (informal, after Zhang, Meng and Cao)
# :label: tgs-thm-selection
#
# In the setting of {prf:ref}`tgs-def-data` and {prf:ref}`tgs-def-model`, gradient descent on the
# population loss from zero reaches, after a number of steps polynomial in $D$ (and in $1/\epsilon$
# for a target loss $\epsilon$), a point where
#
# * every token attends to the relevant group: $S_{j^\star j} \ge 1 - e^{-\Theta(D)}$ for all $j$;
# * the value vector's feature part is aligned with the truth, $v_1 \parallel v^\star$, and its
#   positional part is $v_2 = 0$;
# * the population loss goes to zero at a rate with matching upper and lower bounds.
#
# (See the paper for the exact statement, the iteration count and the constants.)
# ```
#
# ```{prf:proof}
# (Sketch of the mechanism; the paper's proof tracks the full trajectory.) *Symmetry.* Flipping
# $X \to -X$ flips $y$ and leaves the distribution unchanged. If $v_2 = 0$ and the cross blocks of
# $W$ (between features and positions) are zero, the scores $z_i^\top W z_j$ are even in $X$, so $S$
# is even and $f$ is odd; then the gradients of the loss in $v_2$ and in the cross blocks are
# expectations of odd functions and vanish. Gradient descent from zero therefore keeps $v_2 = 0$
# and the cross blocks at zero for ever.
#
# *First steps.* At $W = 0$ the attention is uniform, $S = \mathbf 1\mathbf 1^\top / D$, so
# $f = v^\top \sum_i z_i$ and the gradient in $v$ is $-\tfrac12 \mathbb E[y \sum_i z_i]$, whose only
# non-zero part is $\mathbb E[y\, x_{j^\star}] = \sigma_x\sqrt{2/\pi}\, v^\star$: $v_1$ starts along
# $v^\star$. With $v = [c\, v^\star; 0]$ and uniform attention, the derivative of $f$ in the score
# $A_{ij} = z_i^\top W z_j$ is $S_{ij}(u_i - \bar u)$ with $u_i = c\langle x_i, v^\star\rangle$ and
# $\bar u$ their mean, and $\mathbb E[y\, (u_i - \bar u)] \propto \mathbf 1[i = j^\star] - 1/D$. The
# positional block of $W$ thus moves along $(p_{j^\star} - \bar p)(\sum_j p_j)^\top$: the score of
# token $j^\star$ rises *for every query* $j$, the others fall. Attending to $j^\star$ makes $f$ read
# $v_1^\top x_{j^\star}$ with weight $\approx D$, which sharpens the gradient in $v_1$, which in turn
# sharpens the attention: the two reinforce each other until the loss is small, after which both
# grow like the logarithm of the number of steps, as logistic regression on separable data does.
# ```
#
# ```{prf:theorem} Downstream sample complexity (informal)
# :label: tgs-thm-transfer
#
# Take a new task with the same relevant group and a new direction $v^{\star\prime}$. Fine-tune the
# pre-trained model on $n$ samples. With probability $1 - \delta$ its test error is
# $O\big(\tfrac{d + D}{\gamma^2 n} \log^2 n\big) + O\big(\tfrac{\log(1/\delta)}{n}\big)$ for a margin
# $\gamma$, so $\tilde O\big((d+D)/\epsilon\big)$ samples reach error $\epsilon$. Logistic regression
# on the $dD$ variables of $\mathrm{vec}(X)$ needs of the order of $dD/\epsilon$.
# ```
#
# Why $d + D$: after pre-training, the attention maps an input to the feature
# $\xi(X) = Z S(X) \mathbf 1_D \in \mathbb R^{d+D}$, which is close to $D\, z_{j^\star}$ whatever
# the new task is. Fine-tuning $v$ is then a linear classifier on $d + D$ features, and a linear
# classifier on $k$ features needs of the order of $k/\epsilon$ samples in this realisable problem;
# on $\mathrm{vec}(X)$, $k = dD$ {cite:p}`soudry2018implicit`. In fact the positional part of
# $\xi$ is nearly constant ($\approx D p_{j^\star}$), so it acts as a bias and the effective
# dimension is close to $d + 1$.
#
# ```{note}
# **Where this chapter departs from the paper.** The paper's experimental constants were not
# available to us (only $\eta = 0.5$); these settings are ours.
# * **Population loss.** Each gradient step uses a fresh batch of 512 samples made of 256
#   *antithetic pairs* $(X, y)$ and $(-X, -y)$. This keeps the $X \to -X$ symmetry of the
#   population loss exactly, which the theorem's $v_2 = 0$ rests on. Further runs draw
#   i.i.d. samples instead (512, with and without the feature-position blocks of $W$, and a
#   larger batch), and show what happens when the symmetry holds only on average.
# * $D = d = 8$, $\sigma_x = 1$, $\eta = 0.5$, 600 steps; positional encodings are the orthonormal
#   cosine (DCT-II) basis of $\mathbb R^D$. Eight runs per seed, each with its own $j^\star$ (at
#   $D = 8$ every group is $j^\star$ once) and $v^\star$.
# * **Fine-tuning** trains $v$ only, with $W$ frozen at its pre-trained value: the bound's $d + D$
#   is the size of $v$. Both the transformer's head and the logistic-regression baseline are fitted
#   by Newton's method to the minimum of the same logistic loss with a small ridge
#   $\lambda = 10^{-3}$ (a strictly convex problem, so the starting point does not matter); on
#   separable data this approximates the max-margin classifier that (stochastic) gradient descent
#   converges to in direction {cite:p}`soudry2018implicit`.
# * The paper's CIFAR-10 experiment (patches as groups) is not run: it needs data we do not ship.
# ```
#
# ## The algorithm
#
# The gradients are derived by hand. For one sample write $u_i = v^\top z_i$, so that
# $f = u^\top S \mathbf 1 = \sum_j (S^\top u)_j$. Then
#
# $$
# \frac{\partial f}{\partial v} = Z S \mathbf 1, \qquad
# \frac{\partial f}{\partial A_{ij}} = S_{ij}\big(u_i - (S^\top u)_j\big) =: G_{ij}, \qquad
# \frac{\partial f}{\partial W} = \sum_{i,j} G_{ij}\, z_i z_j^\top = Z G Z^\top ,
# $$ (eq-tgs-grad)
#
# the middle one being the derivative of a softmax over $i$ in column $j$. The loss adds the factor
# $\partial \ell / \partial f = -y\, \sigma(-y f)$ per sample. All runs and samples are batched. The
# tokens are stored feature-major, `Z[run, feature, sample, token]`, so that the two contractions
# that dominate the cost, $W Z$ and $\sum_{\text{samples}} Z G Z^\top$, are each one matrix product
# per run.

# %% tags=["parameters"]
seed = 0
control = "none"  # or a deliberately wrong variant named in controls.yaml
device = "cpu"  # numpy only; the device just has to be valid
progress = False
n_groups = 8  # D, the number of groups (tokens)
group_dim = 8  # d, variables per group
sigma_x = 1.0  # standard deviation of every variable
n_runs = 8  # pre-training runs, each with its own relevant group j* and v*
batch_size = 512  # fresh samples per gradient step (256 antithetic pairs)
steps = 600  # gradient-descent steps of pre-training
learning_rate = 0.5  # eta, for W and v alike
n_checkpoints = 30  # steps at which the trajectory is recorded
control_runs = 3  # runs of each i.i.d.-batch experiment (free; cross-masked; large)
large_batch = 2048  # batch size of the large-batch i.i.d. runs
sample_sizes = [4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256]  # n downstream
tasks_per_run = 4  # new directions v*' per pre-trained model
target_error = 0.2  # test error at which the two methods' sample sizes are compared
test_size = 4000  # test samples per pre-trained model (transformer's error)
ridge = 1e-3  # lambda of the ridge-logistic fits downstream
reference_tasks = 256  # tasks of the simulated k-feature reference learners

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
from scipy.special import expit

lib.check_int("seed", seed, low=0, high=2**32 - 1)
lib.check_choice("device", device, ["auto", "cpu", "cuda"])
lib.check_bool("progress", progress)
lib.check_int("n_groups", n_groups, low=2)
lib.check_int("group_dim", group_dim, low=1)
lib.check_float("sigma_x", sigma_x, low=0.0, low_open=True)
lib.check_int("n_runs", n_runs, low=1, high=n_groups)
lib.check_int("batch_size", batch_size, low=2)
if batch_size % 2:
    raise ValueError(
        f"parameter `batch_size` = {batch_size!r} is invalid: must be an even "
        "integer >= 2 (it is made of antithetic pairs)"
    )
lib.check_int("steps", steps, low=10)
lib.check_float("learning_rate", learning_rate, low=0.0, low_open=True)
lib.check_int("n_checkpoints", n_checkpoints, low=2, high=steps)
lib.check_int("control_runs", control_runs, low=1, high=n_groups)
lib.check_int("large_batch", large_batch, low=2)
lib.check_int_list("sample_sizes", sample_sizes, low=2, min_len=3, increasing=True)
lib.check_int("tasks_per_run", tasks_per_run, low=2)
lib.check_int("test_size", test_size, low=100)
lib.check_float("ridge", ridge, low=0.0, low_open=True)
lib.check_int("reference_tasks", reference_tasks, low=2)
lib.check_float("target_error", target_error, low=0.0, high=0.5, low_open=True)
control = lib.check_control("transformers-group-sparsity", control)
D, d = n_groups, group_dim
m = d + D
n_tasks = n_runs * tasks_per_run
largest = 8 * max(
    4 * max(n_runs, 2 * control_runs) * m * batch_size * D,  # tokens, products
    4 * control_runs * m * large_batch * D,  # the large-batch runs
    n_runs * m * test_size * D + n_runs * test_size * D * D,  # test tokens, attention
    n_tasks * max(sample_sizes) * (m * D + d * D + D * D),  # downstream train sets
    n_tasks * (d * D) ** 2 * 3,  # Newton's Hessians
    64 * max(sample_sizes) * d * D * 3,  # reference learners, 64 tasks at a time
)
if largest > 8e9:
    raise ValueError(
        f"parameters `n_groups`, `group_dim`, `batch_size`, `test_size`, "
        f"`sample_sizes`, `tasks_per_run`: the arrays need {largest / 1e9:.0f} GB "
        "(limit 8 GB); lower them"
    )
rng, device = lib.setup(seed, device)


# %% [markdown]
# The data of {prf:ref}`tgs-def-data` and the tokens of {prf:ref}`tgs-def-model`. Column $j$ of
# `P` is $p_j$, the $j$-th vector of the orthonormal cosine basis.

# %%
def positional_encodings(D):
    k, j = np.arange(D)[:, None], np.arange(D)[None, :]
    P = np.sqrt(2 / D) * np.cos(np.pi * k * (j + 0.5) / D)
    P[0] /= np.sqrt(2)
    return P


P = positional_encodings(D)


def tokens(X):
    """X[run, variable, sample, group] -> Z[run, feature, sample, token]."""
    R, _, n, _ = X.shape
    return np.concatenate([X, np.broadcast_to(P[None, :, None, :], (R, D, n, D))], 1)


def labels(X, j_star, v_star):
    """y = sign<x_{j*}, v*> for X[run, variable, sample, group], one j*, v* per run."""
    x_rel = X[np.arange(len(j_star)), :, :, j_star]  # [run, variable, sample]
    return np.sign(np.einsum("ran,ra->rn", x_rel, v_star))


def sample(n, j_star, v_star, antithetic=True):
    """A batch of n samples per run; antithetic: half of them are the negatives."""
    R = len(j_star)
    X = sigma_x * rng.standard_normal((R, d, n // 2 if antithetic else n, D))
    y = labels(X, j_star, v_star)
    if control == "random-labels":  # labels independent of the inputs
        y = rng.choice([-1.0, 1.0], size=y.shape)
    if antithetic:
        X, y = np.concatenate([X, -X], axis=2), np.concatenate([y, -y], axis=1)
    return tokens(X), y


# %% [markdown]
# The model {eq}`eq-tgs-model` and the gradient {eq}`eq-tgs-grad`, for a batch of runs `W[run]`,
# `v[run]`.

# %%
def attention(W, Z):
    """S[run, sample, i, j]: attention of token j on token i (softmax over i)."""
    R, m, n, D = Z.shape
    WZ = (W @ Z.reshape(R, m, n * D)).reshape(R, m, n, D)
    A = Z.transpose(0, 2, 3, 1) @ WZ.transpose(0, 2, 1, 3)  # A_ij = z_i^T W z_j
    S = np.exp(A - A.max(2, keepdims=True))
    return S / S.sum(2, keepdims=True)


def loss_and_grad(W, v, Z, y):
    R, m, n, D = Z.shape
    Zf = Z.reshape(R, m, n * D)
    S = attention(W, Z)
    u = (v[:, None, :] @ Zf).reshape(R, n, D)  # u_i = v^T z_i
    Su = (u[:, :, None, :] @ S)[:, :, 0, :]  # (S^T u)_j
    margin = y * Su.sum(-1)  # y f
    g = -y * expit(-margin) / n  # dL/df per sample
    grad_v = (Zf @ (S.sum(3) * g[..., None]).reshape(R, n * D, 1))[..., 0]
    if control == "wrong-gradient":  # the softmax's centring term dropped
        G = S * u[..., :, None] * g[:, :, None, None]
    else:
        G = S * (u[..., :, None] - Su[..., None, :]) * g[:, :, None, None]
    H = np.empty_like(Z)  # H = Z G, stored feature-major
    np.matmul(Z.transpose(0, 2, 1, 3), G, out=H.transpose(0, 2, 1, 3))
    grad_W = H.reshape(R, m, n * D) @ Zf.transpose(0, 2, 1)
    loss = np.logaddexp(0.0, -margin).mean(1)
    return loss, grad_W, grad_v, S


# %% [markdown]
# Before training on it, the hand-derived gradient is compared with central finite differences of
# the loss, along a random direction, at a random point.

# %%
def fd_check(n=16, eps=1e-5):
    j_star = np.array([1])
    v_star = np.ones((1, d)) / np.sqrt(d)
    Z, y = sample(n, j_star, v_star, antithetic=False)
    W, v = 0.3 * rng.standard_normal((1, m, m)), rng.standard_normal((1, m))
    dW, dv = rng.standard_normal((1, m, m)), rng.standard_normal((1, m))
    _, gW, gv, _ = loss_and_grad(W, v, Z, y)
    plus = loss_and_grad(W + eps * dW, v + eps * dv, Z, y)[0][0]
    minus = loss_and_grad(W - eps * dW, v - eps * dv, Z, y)[0][0]
    numeric = (plus - minus) / (2 * eps)
    analytic = (gW * dW).sum() + (gv * dv).sum()
    return abs(numeric - analytic) / abs(analytic)


fd_error = fd_check()
shown = "< 1e-06" if fd_error < 1e-6 else f"{fd_error:.1e}"
print(f"finite differences vs hand-derived gradient: relative error {shown}")


# %% [markdown]
# Gradient descent from zero. Besides the loss we record, for each run, the attention on the
# relevant group, $\min_j \mathbb E[S_{j^\star j}]$ (the least attentive query, averaged over the
# batch), the alignment $\cos(v_1, v^\star)$ and the norms of $v_1$ and $v_2$.

# %%
def pretrain(
    j_star, v_star, antithetic=True, masked=None, batch=None, desc="pre-training"
):
    """GD from zero; `masked[run]`: that run's cross blocks W12, W21 are set to 0
    after every step (the blocks W11, W22 and v train as usual)."""
    R = len(j_star)
    W, v = np.zeros((R, m, m)), np.zeros((R, m))
    train_W = np.ones(R)
    if control == "w-frozen":
        train_W[:] = 0.0
    keep = np.ones(R) if masked is None else 1.0 - np.asarray(masked, float)
    antithetic = antithetic and control != "iid-batches"
    marks = set(np.linspace(0, steps - 1, n_checkpoints).round().astype(int))
    log = {k: [] for k in ("step", "loss", "attention", "cos", "v1", "v2")}
    for t in lib.progress(range(steps), enabled=progress, desc=desc):
        Z, y = sample(batch or batch_size, j_star, v_star, antithetic)
        loss, grad_W, grad_v, S = loss_and_grad(W, v, Z, y)
        if t in marks:  # metrics at the point where this step's gradient was taken
            v1, v2 = v[:, :d], v[:, d:]
            norm1 = np.linalg.norm(v1, axis=1)
            log["step"].append(t)
            log["loss"].append(loss)
            log["attention"].append(S[np.arange(R), :, j_star, :].mean(1).min(-1))
            log["cos"].append((v1 * v_star).sum(1) / np.maximum(norm1, 1e-300))
            log["v1"].append(norm1)
            log["v2"].append(np.linalg.norm(v2, axis=1))
        W -= learning_rate * train_W[:, None, None] * grad_W
        v -= learning_rate * grad_v
        W[:, :d, d:] *= keep[:, None, None]
        W[:, d:, :d] *= keep[:, None, None]
    return W, v, {k: np.array(a) for k, a in log.items()}


def unit_vectors(*shape):
    u = rng.standard_normal((*shape, d))
    return u / np.linalg.norm(u, axis=-1, keepdims=True)


j_star = rng.choice(D, size=n_runs, replace=False)
v_star = unit_vectors(n_runs)
clock = time.perf_counter()
W_pre, v_pre, traj = pretrain(j_star, v_star)
print(f"{n_runs} runs x {steps} steps: {time.perf_counter() - clock:.1f} s wall-clock")
print("relevant groups j*:", ", ".join(str(j) for j in j_star))

# %% [markdown]
# ## The experiment
#
# ### Pre-training: the attention finds the group

# %%
print("step | loss (max) | min_j E[S_j*j] (range) | cos(v1, v*) (min) | |v1| (mean)")
for i in np.linspace(0, n_checkpoints - 1, 6).round().astype(int):
    row = [traj[k][i] for k in ("loss", "attention", "cos", "v1")]
    print(
        f"{traj['step'][i]:4d} | {row[0].max():.3f}      | {row[1].min():.3f}-"
        f"{row[1].max():.3f}            | {row[2].min():.4f}            | "
        f"{row[3].mean():.2f}"
    )
v2_ratio = (traj["v2"] / np.maximum(traj["v1"], 1e-300))[1:].max()
shown = "< 1e-12" if v2_ratio < 1e-12 else f"{v2_ratio:.1e}"
print(f"largest |v2|/|v1| over all steps and runs: {shown}")

# %% mystnb={"figure": {"caption": "Pre-training from W = 0, v = 0, one line per run (each its own relevant group). Left: the population-like loss on the batch of each step. Middle: the attention on the relevant group of the least attentive token, which starts at 1/D and climbs towards 1. Right: the alignment cos(v1, v*) of the feature part of the value vector.", "name": "fig-transformers-group-sparsity-training"}} tags=["hide-input"]
fig, axes = lib.subplots(1, 3, width=12.0)
steps_axis = traj["step"] + 1
for r in range(n_runs):  # one colour (antithetic batches), one line per run
    label = f"{n_runs} runs, one per j*" if r == 0 else None
    style = dict(color=lib.PALETTE[0], lw=1, alpha=0.7, label=label)
    axes[0].plot(steps_axis, traj["loss"][:, r], **style)
    axes[1].plot(steps_axis, traj["attention"][:, r], **style)
    axes[2].plot(steps_axis, traj["cos"][:, r], **style)
axes[1].axhline(1 / D, color="0.5", ls=":", lw=1, label="uniform, 1/D")
axes[0].set_ylabel("logistic loss (batch)")
axes[1].set_ylabel(r"min$_j$ E[S$_{j^*j}$]")
axes[1].set_ylim(0, 1)
axes[2].set_ylabel(r"cos(v$_1$, v*)")
for ax in axes:
    ax.set_xlabel("gradient step")
axes[0].legend()
axes[1].legend(loc="upper left")
lib.show(fig)

# %% [markdown]
# The final attention pattern, averaged over a fresh batch of inputs, is the heatmap of
# {numref}`fig-transformers-group-sparsity-heatmap`: for every run the row of the relevant group
# is lit, whatever the query token. The positional block of $W$ says why: in the basis of the
# positional encodings, $P^\top W_{22} P$ has its row $j^\star$ above all others, by the margin
# printed below; the content block $W_{11}$ and the cross blocks stay small or zero.

# %%
Z_fresh, _ = sample(batch_size, j_star, v_star)
S_mean = attention(W_pre, Z_fresh).mean(1)  # [run, i, j]
W22 = P.T @ W_pre[:, d:, d:] @ P  # scores between positions i and j
others = np.ones((n_runs, D), bool)
others[np.arange(n_runs), j_star] = False
row_star = W22[np.arange(n_runs), j_star, :]  # [run, j]
gap = row_star.min(1) - W22.max(1, where=others[:, :, None], initial=-np.inf).max(1)
cross = np.abs(W_pre[:, :d, d:]).max() + np.abs(W_pre[:, d:, :d]).max()
print(
    f"positional score margin of row j* over the other rows: "
    f"{gap.min():.2f}-{gap.max():.2f}"
)
print(f"largest |entry| of the content block W11: {np.abs(W_pre[:, :d, :d]).max():.2f}")
shown = "< 1e-12" if cross < 1e-12 else f"{cross:.1e}"
print(f"largest |entry| of the cross blocks W12, W21: {shown}")

# %% mystnb={"figure": {"caption": "Attention matrices E[S] after pre-training, averaged over fresh inputs, one panel for each of the first four runs. Entry (i, j) is the attention that token j (column) pays to token i (row); the relevant group j* is marked. Every column puts most of its mass on row j*.", "name": "fig-transformers-group-sparsity-heatmap"}} tags=["hide-input"]
n_shown = min(n_runs, 4)
fig, axes = lib.subplots(1, n_shown, width=3.0 * n_shown, height=3.2, squeeze=False)
for r, ax in enumerate(axes[0]):
    image = ax.imshow(S_mean[r], vmin=0, vmax=1, cmap="viridis")
    ax.set_title(f"run {r}: j* = {j_star[r]}")
    ax.set_xlabel("query token j")
    ax.set_yticks(range(D))
    ax.set_xticks(range(D))
    ax.grid(False)
    ax.axhline(j_star[r], color="w", lw=0.8, ls=":")
axes[0][0].set_ylabel("attended token i")
fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label="attention")
lib.show(fig)

# %% [markdown]
# ### I.i.d. batches: is the symmetric solution stable?
#
# The theorem's $v_2 = 0$ comes from the $X \to -X$ symmetry of the population loss, which our
# antithetic batches keep exactly. With i.i.d. batches the symmetry holds only on average: the
# sampling noise gives $v_2$ and the cross blocks of $W$ small non-zero values at every step. Do
# they stay small? Three sets of `control_runs` runs answer it: i.i.d. batches of the same size
# (512); the same, but with the cross blocks $W_{12}, W_{21}$ (features ↔ positions) reset to
# zero after every step, while $W_{11}$, $W_{22}$ and $v$ train as usual (the same noise, the
# coupling removed); and i.i.d. batches four times larger (`large_batch`), whose gradient noise
# is half as large. For each run we print $|v_2|/|v_1|$ at the first checkpoint and averaged
# over the second half of training, and the final attention on $j^\star$.

# %%
clock = time.perf_counter()
j_ctrl = rng.choice(D, size=control_runs, replace=False)
v_ctrl = unit_vectors(control_runs)
masked = np.repeat([False, True], control_runs)
W_ctrl, _, traj_iid = pretrain(
    np.tile(j_ctrl, 2), np.tile(v_ctrl, (2, 1)), False, masked, desc="i.i.d."
)
_, _, traj_big = pretrain(j_ctrl, v_ctrl, False, batch=large_batch, desc="large batch")
seconds = time.perf_counter() - clock
print(f"i.i.d. batches, {3 * control_runs} runs: {seconds:.1f} s wall-clock")


def v2_growth(run_traj):
    """|v2|/|v1| at the first checkpoint after step 0, and averaged over the
    checkpoints of the second half of training."""
    ratio = run_traj["v2"][1:] / np.maximum(run_traj["v1"][1:], 1e-300)
    return ratio[0], ratio[n_checkpoints // 2 - 1 :].mean(0)


settings = {
    f"batch {batch_size}": (traj_iid, ~masked),
    f"batch {batch_size}, cross masked": (traj_iid, masked),
    f"batch {large_batch}": (traj_big, np.ones(control_runs, bool)),
}
early, level, final_att, grown = {}, {}, {}, {}
for name, (run_traj, runs) in settings.items():
    early[name], level[name] = (x[runs] for x in v2_growth(run_traj))
    final_att[name] = run_traj["attention"][-1][runs]
    grew = (level[name] > 0.5) & (level[name] > 10 * early[name])
    grew &= final_att[name] > 0.5  # ... while the group is still selected
    grown[name] = int(grew.sum())
print(
    f"|v2|/|v1| at step {traj_iid['step'][1]} -> averaged over the second "
    "half of training; final min_j E[S_j*j]; per run:"
)
for name in settings:
    shown = ", ".join(
        f"{a:.2f} -> {b:.2f}; {c:.2f}"
        for a, b, c in zip(early[name], level[name], final_att[name])
    )
    print(f"{name:>27}: {shown} ({grown[name]} of {control_runs} grow)")
W_free = W_ctrl[~masked]
cross_ctrl = np.abs(W_free[:, :d, d:]).max() + np.abs(W_free[:, d:, :d]).max()
print(f"largest |entry| of the cross blocks W12, W21, not masked: {cross_ctrl:.2f}")

# %% mystnb={"figure": {"caption": "Symmetric (antithetic) batches against i.i.d. batches, one line per run. Left: the positional part of the value vector relative to its feature part, |v2|/|v1|: zero throughout with antithetic batches; with i.i.d. batches it grows to order one when W trains freely, at either batch size (the count per setting is printed above), and decays when the cross blocks W12, W21 of W are reset to zero after every step. Right: the attention on the relevant group.", "name": "fig-transformers-group-sparsity-control"}} tags=["hide-input"]
fig, axes = lib.subplots(1, 2, width=10.0)
curves = (
    (traj, slice(None), lib.PALETTE[0], "antithetic"),
    (traj_iid, ~masked, lib.PALETTE[2], f"i.i.d., batch {batch_size}"),
    (traj_iid, masked, lib.PALETTE[3], f"i.i.d., batch {batch_size}, cross masked"),
    (traj_big, slice(None), lib.PALETTE[4], f"i.i.d., batch {large_batch}"),
)
for run_traj, runs, color, name in curves:
    ratio = (run_traj["v2"][1:] / run_traj["v1"][1:])[:, runs]
    attention_runs = run_traj["attention"][:, runs]
    for r in range(ratio.shape[1]):
        label = name if r == 0 else None
        axes[0].plot(run_traj["step"][1:] + 1, ratio[:, r], color=color, label=label)
        attention_run = attention_runs[:, r]
        axes[1].plot(run_traj["step"] + 1, attention_run, color=color, label=label)
axes[0].set_ylabel(r"|v$_2$| / |v$_1$|")
axes[1].set_ylabel(r"min$_j$ E[S$_{j^*j}$]")
axes[1].set_ylim(0, 1)
for ax in axes:
    ax.set_xlabel("gradient step")
    ax.legend(loc="upper left", fontsize=8)
lib.show(fig)


# %% [markdown]
# ### Downstream: a new task from few samples
#
# Each pre-trained model gets `tasks_per_run` new tasks: a fresh direction $v^{\star\prime}$ on the
# same relevant group. With $W$ frozen, the model's output is $v^\top \xi(X)$ with the feature
# $\xi(X) = Z S(X)\mathbf 1 \in \mathbb R^{d+D}$, so fine-tuning $v$ on $n$ samples is a logistic
# regression on $\xi$. The baseline is a logistic regression on $\mathrm{vec}(X) \in \mathbb R^{dD}$,
# fitted by the same solver on the same samples. The transformer's test error is measured on
# `test_size` fresh inputs per model; the baseline's is exact, since for a linear classifier $w$ on
# isotropic Gaussian inputs the error is the angle between $w$ and the truth over $\pi$.

# %%
def features(W, X):
    """xi(X) = Z S 1 for X[run, variable, sample, group] -> [run, sample, d + D]."""
    Z = tokens(X)
    weight = attention(W, Z).sum(3)  # (S 1)_i, [run, sample, i]
    return np.einsum("rasi,rsi->rsa", Z, weight)


def ridge_logistic(F, y, lam, iters=100):
    """Minimise mean log(1 + exp(-y F w)) + lam/2 |w|^2 by Newton; F [task, n, k]."""
    n, k = F.shape[1:]
    w = np.zeros((F.shape[0], k))
    for _ in range(iters):
        s = expit(-y * (F @ w[..., None])[..., 0])
        grad = -((y * s)[:, None, :] @ F)[:, 0] / n + lam * w
        if np.abs(grad).max() < 1e-10:
            return w
        hess = (F * (s * (1 - s))[..., None]).transpose(0, 2, 1) @ F / n
        w -= np.linalg.solve(hess + lam * np.eye(k), grad[..., None])[..., 0]
    raise RuntimeError(f"Newton did not converge: gradient {np.abs(grad).max():.1e}")


W_down = W_pre  # the attention used downstream
if control == "random-attention":  # a random W of the same size: nothing selected
    W_rand = rng.standard_normal(W_pre.shape)
    scale = np.linalg.norm(W_pre, axis=(1, 2)) / np.linalg.norm(W_rand, axis=(1, 2))
    W_down = W_rand * scale[:, None, None]
task_run = np.repeat(np.arange(n_runs), tasks_per_run)  # the model each task uses
W_task, j_task = W_down[task_run], j_star[task_run]
v_new = unit_vectors(n_tasks)
X_test = sigma_x * rng.standard_normal((n_runs, d, test_size, D))
xi_test = features(W_down, X_test)[task_run]  # [task, sample, d + D]
y_test = labels(X_test[task_run], j_task, v_new)

clock = time.perf_counter()
err_tf, err_lr = [], []
for n in lib.progress(sample_sizes, enabled=progress, desc="downstream n"):
    X = sigma_x * rng.standard_normal((n_tasks, d, n, D))
    y = labels(X, j_task, v_new)
    w_tf = ridge_logistic(features(W_task, X), y, ridge)
    err_tf.append((np.sign((xi_test @ w_tf[..., None])[..., 0]) != y_test).mean(1))
    vec_X = X.transpose(0, 2, 1, 3).reshape(n_tasks, n, d * D)
    w_lr = ridge_logistic(vec_X, y, ridge).reshape(n_tasks, d, D)
    w_rel = w_lr[np.arange(n_tasks), :, j_task]
    cos_lr = (w_rel * v_new).sum(1) / np.linalg.norm(w_lr, axis=(1, 2))
    err_lr.append(np.arccos(np.clip(cos_lr, -1, 1)) / np.pi)
err_tf, err_lr = np.array(err_tf), np.array(err_lr)  # [n, task]
print(f"downstream fits: {time.perf_counter() - clock:.1f} s wall-clock")

# %%
ns = np.array(sample_sizes)
mean_tf, mean_lr = err_tf.mean(1), err_lr.mean(1)
se_tf = err_tf.std(1, ddof=1) / np.sqrt(n_tasks)
se_lr = err_lr.std(1, ddof=1) / np.sqrt(n_tasks)
print("   n | transformer err | logistic reg. err | n err/(d+D) | n err/(dD)")
for n, a, sa, b, sb in zip(ns, mean_tf, se_tf, mean_lr, se_lr):
    print(
        f"{n:4d} | {a:.3f} ± {sa:.3f}   | {b:.3f} ± {sb:.3f}     | "
        f"{n * a / (d + D):.2f}        | {n * b / (d * D):.2f}"
    )


# %% [markdown]
# How many samples does each method need for a given error? For a target $\epsilon$
# (`target_error`) we read off the $n$ at which each mean error curve crosses $\epsilon$, by linear
# interpolation in $\log n$ and $\log$ error between the two grid points around the crossing, and
# take the ratio $r = n_{\text{LR}}(\epsilon) / n_{\text{TF}}(\epsilon)$. The grid of $n$ is
# geometric with ratio about $\sqrt 2$, so that each crossing falls between two close points and
# not at an end of the grid. The standard error comes from a two-stage (cluster) bootstrap: the
# tasks of one pre-trained model share its attention, so we resample the models and then the
# tasks within each; a resample in which either curve does not cross $\epsilon$ inside the grid
# has no ratio, and the number of such resamples is printed and counted against the claim. If the
# transformer behaves as a linear classifier on $d + D$ features and logistic regression on $dD$,
# with the same constant, $r \approx dD/(d+D)$; with the positional part acting as a mere bias,
# $r \approx dD/(d+1)$; a curve that flattens above $\epsilon$ never reaches it.

# %%
def samples_to_reach(err, eps):
    """n at which err[..., n] first falls to eps (log-log interpolation); NaN if
    never, or if it is below eps already at the smallest n."""
    below = err <= eps
    first = np.where(below.any(-1), below.argmax(-1), -1)
    inside = first >= 1
    i = np.clip(first, 1, len(ns) - 1)
    lo = np.take_along_axis(np.log(err), (i - 1)[..., None], -1)[..., 0]
    hi = np.take_along_axis(np.log(err), i[..., None], -1)[..., 0]
    frac = (lo - np.log(eps)) / np.where(inside, lo - hi, 1.0)
    log_n = np.log(ns[i - 1]) + frac * (np.log(ns[i]) - np.log(ns[i - 1]))
    return np.where(inside, np.exp(log_n), np.nan)


n_boot = 400
boot_model = rng.integers(0, n_runs, (n_boot, n_runs, 1))  # models, then tasks
boot_task = rng.integers(0, tasks_per_run, (n_boot, n_runs, tasks_per_run))
boot = (boot_model * tasks_per_run + boot_task).reshape(n_boot, n_tasks)
boot_tf, boot_lr = err_tf[:, boot].mean(-1).T, err_lr[:, boot].mean(-1).T  # [b, n]
n_eps_tf = samples_to_reach(mean_tf, target_error)
n_eps_lr = samples_to_reach(mean_lr, target_error)
ratio_eps = n_eps_lr / n_eps_tf
boot_ratio = samples_to_reach(boot_lr, target_error) / samples_to_reach(
    boot_tf, target_error
)
no_crossing = int(np.isnan(boot_ratio).sum())
ratio_se = np.nanstd(boot_ratio, ddof=1) if no_crossing < n_boot - 1 else np.nan
k_paper, k_bias = d * D / (d + D), d * D / (d + 1)
print(
    f"samples to reach error {target_error:g}: transformer {n_eps_tf:.1f}, "
    f"logistic regression {n_eps_lr:.1f}"
)
print(
    f"ratio r = {ratio_eps:.2f} ± {ratio_se:.2f} (cluster-bootstrap s.e.); "
    f"dD/(d+D) = {k_paper:.2f}, dD/(d+1) = {k_bias:.2f}"
)
print(f"bootstrap resamples without a crossing: {no_crossing} of {n_boot}")

# %% [markdown]
# The constant is not the same, though: on this grid neither count is in its asymptotic
# regime, and a ratio of sample sizes at a fixed error need not equal the ratio of the counts.
# So we calibrate the two readings by simulation. A reference learner with $k$ features is the
# same ridge-logistic fit on $k$ isotropic Gaussian features of which $d$ carry the label (a
# fresh unit direction per task, `reference_tasks` tasks, the same grid of $n$); for $k = dD$ it
# is exactly the logistic-regression baseline, since $\mathrm{vec}(X)$ is such a vector. Its
# calibrated ratio $r(k) = n_{dD}(\epsilon)/n_k(\epsilon)$ is what a learner that behaves as a
# linear classifier on $k$ features would give: $r(d + D)$ for the theorem's count, $r(d + 1)$
# for the count with the positional part as a bias. Its standard error is a bootstrap over the
# reference tasks.

# %%
ref_rng = np.random.default_rng([seed, 7])  # its own stream: the same for every control


def reference_errors(k, tasks):
    """Test error of the ridge-logistic fit on k Gaussian features, d relevant."""
    err = np.empty((len(ns), tasks))
    for start in range(0, tasks, 64):
        T = min(64, tasks - start)
        truth = ref_rng.standard_normal((T, d))
        truth /= np.linalg.norm(truth, axis=1, keepdims=True)
        for i, n in enumerate(ns):
            F = sigma_x * ref_rng.standard_normal((T, n, k))
            y = np.sign(F[:, :, :d] @ truth[..., None])[..., 0]
            w = ridge_logistic(F, y, ridge)
            cos = (w[:, :d] * truth).sum(1) / np.linalg.norm(w, axis=1)
            err[i, start : start + T] = np.arccos(np.clip(cos, -1, 1)) / np.pi
    return err


clock = time.perf_counter()
k_ref = {"d+1": d + 1, "d+D": d + D, "dD": d * D}
err_ref = {name: reference_errors(k, reference_tasks) for name, k in k_ref.items()}
ref_boot = ref_rng.integers(0, reference_tasks, (n_boot, reference_tasks))
n_ref = {name: samples_to_reach(e.mean(1), target_error) for name, e in err_ref.items()}
n_ref_boot = {
    name: samples_to_reach(e[:, ref_boot].mean(-1).T, target_error)
    for name, e in err_ref.items()
}
r_ref = {name: n_ref["dD"] / n_ref[name] for name in ("d+1", "d+D")}
r_ref_se = {
    name: np.nanstd(n_ref_boot["dD"] / n_ref_boot[name], ddof=1)
    for name in ("d+1", "d+D")
}
print(f"reference learners: {time.perf_counter() - clock:.1f} s wall-clock")
for name, k in k_ref.items():
    print(
        f"k = {name} = {k:2d} Gaussian features: n to reach {target_error:g} = "
        f"{n_ref[name]:.1f}"
        + (
            f"; r(k) = {r_ref[name]:.2f} ± {r_ref_se[name]:.2f}"
            if name in r_ref
            else " (the baseline's count)"
        )
    )
print(f"transformer: r = {ratio_eps:.2f} ± {ratio_se:.2f}")
z_paper = (ratio_eps - r_ref["d+D"]) / np.hypot(ratio_se, r_ref_se["d+D"])
z_bias = (ratio_eps - r_ref["d+1"]) / np.hypot(ratio_se, r_ref_se["d+1"])
print(
    f"r - r(d+D) = {z_paper:.1f} combined s.e.; r - r(d+1) = {z_bias:.1f} combined s.e."
)

# %% [markdown]
# {numref}`fig-transformers-group-sparsity-downstream` shows both curves, the target error, the
# two crossings and the two calibrated reference learners.

# %% mystnb={"figure": {"caption": "Test error of the new task against the number of samples n (log-log), mean over the tasks with \u00b12 standard errors: the fine-tuned transformer (attention frozen, value vector trained) against logistic regression on all dD variables. Dotted: the target error and the sample sizes at which each curve reaches it. Dashed (grey): the simulated reference learners, the same fit on k = d+D and k = d+1 Gaussian features.", "name": "fig-transformers-group-sparsity-downstream"}} tags=["hide-input"]
fig, ax = lib.subplots()
for mean, se, n_eps, color, label in (
    (mean_tf, se_tf, n_eps_tf, lib.PALETTE[0], "pre-trained transformer, v fine-tuned"),
    (mean_lr, se_lr, n_eps_lr, lib.PALETTE[1], "logistic regression on vec(X)"),
):
    ax.errorbar(ns, mean, yerr=2 * se, marker="o", capsize=3, color=color, label=label)
    if np.isfinite(n_eps):
        ax.axvline(n_eps, color=color, ls=":", lw=1)
ax.axhline(
    target_error, color="0.3", ls=":", lw=1, label=f"target error {target_error:g}"
)
for name, style in (("d+D", "--"), ("d+1", (0, (6, 2, 1, 2)))):
    label = f"reference: k = {name} = {k_ref[name]} features"
    ax.plot(ns, err_ref[name].mean(1), ls=style, color="0.45", lw=1.2, label=label)
ax.axhline(0.5, color="0.5", ls="-.", lw=1, label="chance")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_ylim(min(mean_tf.min(), mean_lr.min()) / 2, 0.7)
ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5) if t > ax.get_ylim()[0]]
ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
ax.minorticks_off()
ax.set_xticks(ns, [str(n) for n in ns])
ax.set_xlabel("downstream training samples n (log scale)")
ax.set_ylabel("test error (probability)")
ax.legend(fontsize=8)
lib.show(fig)

# %% [markdown]
# Where does the transformer's curve flatten? The trained attention is not exactly one-hot: each
# query still leaks a little attention to the irrelevant groups, so
# $\xi_x = \sum_i (S\mathbf 1)_i\, x_i$ carries, besides $(S\mathbf 1)_{j^\star} x_{j^\star}$, a
# Gaussian-like mixture of the other groups that no head $v$ can remove. Treating that mixture as
# independent noise, a perfect head would still err with probability about
# $\frac1\pi \arctan\big(\sqrt{\mathbb E\sum_{i\ne j^\star}(S\mathbf 1)_i^2} \,/\,
# \mathbb E(S\mathbf 1)_{j^\star}\big)$, printed below from the trained attention: it is the floor
# the curve approaches, and it falls as pre-training goes on.

# %%
weight = attention(W_down, tokens(X_test)).sum(3)  # (S 1)_i, [run, sample, i]
on = weight[np.arange(n_runs), :, j_star]  # [run, sample]
leak = (weight**2).sum(-1) - on**2
floor = np.arctan(np.sqrt(leak.mean(1)) / on.mean(1)) / np.pi
print(
    "attention-leak error floor, per pre-trained model: "
    + ", ".join(f"{x:.3f}" for x in floor)
)

# %% [markdown]
# Does the error fall at the rate of the bound? The transfer theorem bounds it by
# $(d + D)\log^2 n/(\gamma^2 n)$ up to a constant. A rate check cannot see the constant: a
# log-log slope is the same for $(d+D)/n$ and $dD/n$, so the count $d + D$ is tested by the
# calibrated ratio above, not here. What a slope can test is the *form* of the rate against a
# named alternative. On this grid the bound's form $(d + D)\log^2 n/n$ has a log-log slope of
# only about $-0.37$ (the $\log^2 n$ factor is far from constant between 4 and 256), shallower
# than the $-1/2$ of a slow rate $\sqrt{k/n}$, the rate of an agnostic (non-realisable) bound. So
# "the error falls at least as fast as the bound's form" would be passed by a $\sqrt{k/n}$
# learner too. We ask instead for the error's own log-log slope (least squares over the grid,
# with the same cluster-bootstrap standard error) to be steeper than $-1/2$ by two standard
# errors: the realisable, fast-rate regime that the $1/n$ of the bound describes, and that a
# $\sqrt{k/n}$ learner would fail. It is a statement about this grid: a linear learner reaches
# its fast regime only once $n$ is a few times its number of features, which is why the same
# slope is printed for the reference learners (on $k = dD$, the baseline, it is still slow
# here, although that learner has the fast rate at larger $n$), and past the grid the
# transformer's error settles on the leak floor above, where the slope must go to zero.

# %%
log_n = np.log(ns)


def log_slope(y):
    """Least-squares slope of log y against log n, along the last axis."""
    x = log_n - log_n.mean()
    return np.log(y) @ x / (x @ x)


bound_rate = (d + D) * log_n**2 / ns
slope_tf = log_slope(mean_tf)
slope_se = np.std(log_slope(boot_tf), ddof=1)
slope_ref = {name: log_slope(e.mean(1)) for name, e in err_ref.items()}
print(
    f"log-log slope of the error over n = {ns[0]}..{ns[-1]}: transformer "
    f"{slope_tf:.2f} ± {slope_se:.2f} (cluster-bootstrap s.e.), logistic regression "
    f"{log_slope(mean_lr):.2f}"
)
print(
    "reference learners: "
    + ", ".join(f"k = {name}: {slope_ref[name]:.2f}" for name in k_ref)
    + f"; bound's form (d+D) log^2 n / n: {log_slope(bound_rate):.2f}; "
    "slow rate sqrt(k/n): -0.50"
)

# %% [markdown]
# ## What we reproduced
#
# The thresholds come from the spread we measured, not from the paper (which gives no numbers for
# this setting). Over the runs of one seed the final attention $\min_j \mathbb E[S_{j^\star j}]$
# varies little (its range is printed in the table above), far less than its distance to the
# uniform $1/D$. We ask for more than $0.75$, six times $1/D$, and for it to be still rising
# between the middle and the end of training (over seeds 0–9 the smallest value per seed is
# {seeds}`2`). With i.i.d. batches (control `iid-batches`) the attention after 600 steps falls
# just below this bar (the i.i.d. runs' final attention is printed above), so that control flips
# the claim too. The alignment $\cos(v_1, v^\star)$ must exceed $0.99$ (seeds 0–9: {seeds}`3`).
# With uniform attention the *population* gradient in $v_1$ already points along $v^\star$
# (proof sketch), but on batches of 512 the signal of one group in $D$ is weak against the batch
# noise: with $W$ never trained (control `w-frozen`) the smallest cosine falls below the bar. So
# this check depends on the selection as well as on $v^\star$ (random labels, which remove
# $v^\star$, flip it too).
#
# For $v_2$ two claims are kept apart. With antithetic batches $v_2 = 0$ is an algebraic
# consequence of the symmetry argument in the proof sketch: the check that $|v_2|/|v_1| < 0.1$ is
# an implementation check (the code keeps the symmetry), and the control `iid-batches`, which
# removes the antithetic pairing, shows that it can fail. The informative question is whether the
# symmetric solution survives noise that respects the symmetry only on average. We say that
# $|v_2|$ *grows* on a run if $|v_2|/|v_1|$, averaged over the second half of training, exceeds
# $0.5$ (five times the "near zero" band) and is more than ten times its value at the first
# checkpoint, while the attention still selects the group (final attention on $j^\star$ above
# $0.5$, four times uniform): a growth away from the symmetric solution that the theorem
# describes, not noise around a solution that was never reached. The claim asks this on a
# majority of the `control_runs` runs at the default batch and at a batch four times larger, and
# on a minority when the cross blocks are masked (the same i.i.d. noise, no coupling between
# $v_2$ and the attention). With random labels (control `random-labels`) nothing is selected and
# $v_1$ has no signal to outgrow the noise, and the claim fails, as it does with $W$ never
# trained. The growth is a random event in time: a run may not leave the symmetric solution
# within the 600 steps, and on a seed where only one of the three runs at a batch size does, the
# claim fails on that seed. Over seeds 0–9 it holds on {seeds}`5:held`, and the share of the
# unmasked runs that grow is {seeds}`5`. This is a robustness property that the theorem does not
# address: the theorem is about gradient descent on the population loss, which has no sampling
# noise.
#
# Downstream, the transformer must beat logistic regression at every $n$ of the grid (over seeds
# 0–9 the largest ratio of the mean errors is {seeds}`6`). The sample-complexity claim asks the
# ratio $r = n_{\text{LR}}(\epsilon)/n_{\text{TF}}(\epsilon)$ to exceed the calibrated $r(d+D)$,
# the ratio that a linear classifier on the theorem's $d + D$ features would give, by two
# standard errors (the transformer's cluster-bootstrap s.e. and the reference's, combined), and
# fails if more than 5% of the resamples have no crossing inside the grid: a transformer whose
# curve stays above $\epsilon$ (no selection) has no $n_{\text{TF}}(\epsilon)$. The rate claim
# asks the error's log-log slope to be steeper than $-1/2$ by two standard errors; it rules out a
# slow $\sqrt{k/n}$ rate on this grid and says nothing about the count $k$.

# %%
claims = lib.Claims(
    "transformers-group-sparsity", paper="zhang2025transformer", control=control
)
claims.add(
    "The hand-derived gradient matches finite differences (relative error)",
    "< 1e-06" if fd_error < 1e-6 else f"{fd_error:.1e}",
    "(implementation check)",
    fd_error < 1e-6,
)
att_end, att_mid = traj["attention"][-1], traj["attention"][n_checkpoints // 2]
claims.add(
    f"Every token attends to the relevant group: min over runs (all j* tried) and "
    f"tokens of E[S_j*j] after {steps} steps > 0.75 (uniform: 1/D), and still rising",
    att_end.min(),
    "S_j*j >= 1 - exp(-Theta(D)) for all j (Thm. 3.2)",
    bool(att_end.min() > 0.75 and (att_end > att_mid).all()),
    fmt="{:.3f}",
)
cos_end = traj["cos"][-1]
claims.add(
    "The value vector's feature part aligns with v*: "
    "min over runs of cos(v1, v*) > 0.99",
    cos_end.min(),
    "v1 aligned with v* (Thm. 3.2)",
    bool(cos_end.min() > 0.99),
    fmt="{:.4f}",
)
claims.add(
    "Antithetic (symmetric) batches keep the positional part v2 at 0 "
    "(|v2|/|v1| < 0.1 at every checkpoint; max shown)",
    "< 1e-12" if v2_ratio < 1e-12 else f"{v2_ratio:.1e}",
    "(implementation check of the symmetry behind v2 = 0)",
    bool(v2_ratio < 0.1),
)
free = [f"batch {batch_size}", f"batch {large_batch}"]
cross_masked = f"batch {batch_size}, cross masked"
majority = control_runs / 2
claims.add(
    f"The symmetric solution is unstable under finite i.i.d. batches: |v2|/|v1| grows "
    f"(second-half mean > 0.5 and > 10 times its value at the first checkpoint, with "
    f"final attention on j* > 0.5) on a majority of the {control_runs} runs at batch "
    f"{batch_size} and at batch {large_batch}, and on a minority when the cross blocks "
    f"W12, W21 are reset to 0 after every step (runs that grow per setting; largest "
    f"second-half |v2|/|v1| with the cross blocks masked; min final attention of the "
    f"unmasked runs)",
    f"{grown[free[0]]}/{control_runs}, {grown[free[1]]}/{control_runs}, masked "
    f"{grown[cross_masked]}/{control_runs}; {level[cross_masked].max():.2f}; "
    f"{min(final_att[name].min() for name in free):.2f}",
    "v2 = 0 for GD on the population loss (Thm. 3.2); finite batches not addressed",
    bool(min(grown[name] for name in free) > majority > grown[cross_masked]),
    value=sum(grown[name] for name in free) / (2 * control_runs),
)
worst = (mean_tf / mean_lr).max()
claims.add(
    f"Downstream: the fine-tuned transformer's test error is below logistic "
    f"regression's at every n in {ns[0]}..{ns[-1]} (largest ratio of mean errors)",
    worst,
    "pre-trained transformer adapts with few samples",
    bool(worst < 1),
    fmt="{:.2f}",
)
ratio_gap_se = np.hypot(ratio_se, r_ref_se["d+D"])
claims.add(
    f"Samples to reach test error {target_error:g}: the ratio r = n_LR/n_TF exceeds "
    f"the calibrated r(d+D) of a learner on d+D = {d + D} Gaussian features by 2 "
    f"combined bootstrap s.e., with at most 5% of the resamples without a crossing "
    f"(r; r(d+D); r(d+1) for reference)",
    f"{ratio_eps:.1f} ± {ratio_se:.1f} ({no_crossing}/{n_boot} without crossing); "
    f"{r_ref['d+D']:.1f} ± {r_ref_se['d+D']:.1f}; "
    f"{r_ref['d+1']:.1f} ± {r_ref_se['d+1']:.1f}",
    "O~((d+D)/eps) samples vs ~dD/eps (transfer theorem)",
    bool(
        np.isfinite(ratio_eps)
        and no_crossing <= 0.05 * n_boot
        and ratio_eps - 2 * ratio_gap_se > r_ref["d+D"]
    ),
    value=ratio_eps if np.isfinite(ratio_eps) else 0.0,
)
claims.add(
    f"On this grid (n = {ns[0]}..{ns[-1]}) the transformer's error falls faster than "
    f"the slow rate sqrt(k/n): its log-log slope + 2 cluster-bootstrap s.e. < -1/2 "
    f"(slope ± s.e.; the bound's form (d+D) log^2 n / n has slope "
    f"{log_slope(bound_rate):.2f} on this grid)",
    f"{slope_tf:.2f} ± {slope_se:.2f}",
    "err <= O((d+D) log^2 n / (gamma^2 n)) (transfer theorem)",
    bool(slope_tf + 2 * slope_se < -0.5),
    value=slope_tf,
)
claims.report()

# %% [markdown]
# ```{controls-table}
# ```
#
# Run one control with `make run CHAPTER=transformers-group-sparsity CONTROL=w-frozen` (or any
# name in the table): the claims cell then names the control and fails if a claim it must flip
# still holds.
#
# ## How this compares with the paper
#
# | | paper {cite:p}`zhang2025transformer` | this chapter |
# |---|---|---|
# | Model | one layer, one head, merged $W$, value $v$, concatenated positions | the same, numpy with hand-derived gradients, float64 |
# | Training | GD on the population loss from 0, $\eta = 0.5$ | GD on fresh antithetic batches of 512 from 0, $\eta = 0.5$, 600 steps |
# | Attention on $j^\star$ | $\ge 1 - e^{-\Theta(D)}$ for every token after $\mathrm{poly}(D)$ steps | every token, every $j^\star$ tried, every seed: well above $1/D$ and rising, but not yet near $1 - e^{-D}$ (seeds 0–9: {seeds}`2`; {numref}`fig-transformers-group-sparsity-training`) |
# | $v_1$, $v_2$ | $v_1 \parallel v^\star$, $v_2 = 0$ (population loss) | $\cos(v_1, v^\star) > 0.99$; with symmetric batches $v_2 = 0$ up to rounding at $D = 8$ (default), but at $D = 16$ (`paper` preset) the rounding error itself grows, to $|v_2|/|v_1|$ = {paper-preset}`4`; with i.i.d. batches $|v_2|$ grows through the cross blocks of $W$ (a question the theorem does not address) |
# | Mechanism | $W$ block structure (Lemma 5.1) | positional block $W_{22}$ lifts row $j^\star$ uniformly; cross blocks zero; content block small |
# | Downstream | $\tilde O((d+D)/\epsilon)$ vs $\approx dD/\epsilon$ | transformer below logistic regression at every $n$; at the target error (0.2) logistic regression needs $r$ = {seeds}`7` times as many samples (seeds 0–9), above the calibrated ratio $r(d+D)$ of a linear learner on $d + D$ features, nearer $r(d+1)$ (both printed by claim 7); `paper` preset: {paper-preset}`7` |
# | Rate | error $O\big((d+D)\log^2 n/(\gamma^2 n)\big)$ | on the grid $n = 4 \dots 256$ the error's log-log slope is steeper than the $-1/2$ of a slow $\sqrt{k/n}$ rate (seeds 0–9: {seeds}`8`; `paper` preset, $n = 4 \dots 1024$: {paper-preset}`8`); the constant, hence the count $d + D$, is not seen by a slope |
# | Fine-tuning | SGD from the pre-trained model | $v$ only, $W$ frozen, ridge-logistic fit to convergence (inferred) |
# | Scale | not known to us; CIFAR-10 patches | $D = d = 8$ (default), $D = d = 16$ (`paper` preset, 4000 steps); no CIFAR-10 |
#
# The `paper` preset ($D = d = 16$, 4000 steps, $n$ up to 1024; {paper-preset}`runtime` on two
# CPU cores) runs the same claims at twice the size, where
# $dD/(d+D) = 8$ and $dD/(d+1) \approx 15$. There the least attention on the relevant group is
# {paper-preset}`2`, the i.i.d.-batch runs give {paper-preset}`5`, and the
# sample-complexity ratio is {paper-preset}`7`. Two findings go beyond a simple match.
#
# First, the theorem's $v_2 = 0$ rests on the exact $X \to -X$ symmetry of the population loss,
# and the symmetric solution is not stable. With i.i.d. batches the sampling noise seeds the
# positional value $v_2$ and the cross blocks of $W$ (features ↔ positions), and gradient descent
# *grows* them, until $|v_2|$ exceeds $|v_1|$ ({numref}`fig-transformers-group-sparsity-control`;
# the counts are printed above). A batch four times larger, with half the gradient noise, does
# not prevent it; resetting the cross blocks to zero after every step does, with the same noise
# and the attention still trained: $|v_2|/|v_1|$ then decays. So the instability is not the noise
# itself but its amplification through the coupling of $v_2$ with the cross blocks of the
# attention. At $D = 8$ the attention of the i.i.d. runs still concentrates on $j^\star$, though
# less than with symmetric batches (below the $0.75$ of claim 2, above the $0.5$ of claim 5; the
# values are printed beside claim 5): the variable selection survives, the exact form of the
# solution does not.
#
# At $D = 16$ (`paper` preset) both effects are stronger. With i.i.d. batches the smallest final
# attention of the unmasked runs, the last number of {paper-preset}`5`, is far below $0.5$: runs
# lose the relevant group, so the selection itself does not survive the noise there; those
# runs do not count as growing, and claim 5 does not hold in the `paper` preset. With *symmetric* batches the rounding error in $v_2$,
# about $10^{-16}$ at the start, grows to {paper-preset}`4` (claim 4 there, still below its
# $0.1$ band), an amplification by many orders of magnitude with no sampling noise at all. This
# suggests that the instability is a property of the gradient-descent dynamics near the
# symmetric solution, which grows any perturbation of $v_2$ and the cross blocks, and not only of
# the sampling noise; at $D = 8$ and 600 steps the growth is too slow to lift rounding errors
# into view. The population-loss theorem follows an exact trajectory; with finite precision or
# finite batches, gradient descent leaves it, slowly at $D = 8$ and visibly at $D = 16$.
#
# Second, over $n = 4 \dots 256$ neither error curve is in its $1/n$ regime (the fitted log-log
# slopes are printed above): logistic regression on $dD = 64$ variables is pre-asymptotic
# ($n/dD \le 4$), and the transformer's curve bends towards the floor set by its imperfect
# attention. A fit of $c\,k/n$ to either curve would therefore say little, and the naive ratio of
# counts $dD/(d+D)$ is not what a $(d+D)$-feature learner gives at a fixed error on this grid.
# The simulated reference learners give that calibration: the measured ratio, {seeds}`7` over
# seeds 0–9, lies between $r(d+D)$ and $r(d+1)$, nearer the second (both printed in claim 7's
# row, and {numref}`fig-transformers-group-sparsity-downstream` shows the transformer's
# curve against the two reference curves). The data thus favour the count $d + 1$, in which the
# nearly constant positional part of $\xi$ acts as a bias rather than as $D$ features: the
# transformer does better than the theorem's $d + D$, which is an upper bound. The rate claim adds
# only that the fall is faster than a $\sqrt{k/n}$ rate on this grid; the reference learner on
# $k = d + D$ features has about the same slope as the transformer here, and the one on $k = dD$
# (the baseline) a slower one, because it is still pre-asymptotic.
# The theorem's iteration count, polynomial in $D$, is not tested here: two sizes cannot measure
# an exponent.
#
# ## Try it
#
# * `-p steps=2000`: the proof sketch predicts that the attention and the margin of row
#   $j^\star$ in $W_{22}$ keep growing, roughly like the logarithm of the step count. Compare the
#   leak floor and the transformer's error at the largest $n$ with the defaults.
# * `-p "sample_sizes=[8, 16, 32, 64, 128, 256, 512, 1024]"`: past the default grid the error
#   approaches the leak floor, so its log-log slope must eventually flatten. Where does the rate
#   claim stop holding, and where does the reference learner on $k = dD$ reach its fast rate?
# * `-p n_groups=4` or `-p large_batch=4096`: does $|v_2|$ still grow under i.i.d. batches with
#   fewer groups, or with a batch eight times the default?
# * `-p target_error=0.1` compares the sample sizes at a smaller error (logistic regression may
#   not reach it within the grid; add larger $n$ to `sample_sizes`).
