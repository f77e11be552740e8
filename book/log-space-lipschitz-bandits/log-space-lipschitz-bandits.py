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
# # Lipschitz bandits in logarithmic space
#
# ```{admonition} About this chapter
# :class: tip
# Paper: {cite:t}`zhu2025lipschitz` (ICLR 2025). Question: a Lipschitz bandit has a continuum of
# arms, and every algorithm known to reach the optimal regret
# $\tilde O(T^{(d_z+1)/(d_z+2)})$ stores statistics for many of the arms it has tried. Can an
# algorithm reach the same regret while remembering only $O(\log T)$ bits, and is that much memory
# needed? The paper's pseudo-code was not available to us, so the algorithm here, *ID-Elim*, is our
# reconstruction of its idea (cube elimination regenerated from the root every round, against one
# stored comparison arm); the chapter says which parts are ours. The defaults run three reward
# functions (zooming dimensions $0$, $\tfrac12$ and $1$) at horizons $10^4$ to $10^8$ with 20 seeds
# for the elimination algorithms and a grid-UCB baseline at $T \le 10^5$, in well under a minute on
# a CPU; `make run CHAPTER=log-space-lipschitz-bandits PRESET=paper` runs half-decade horizons,
# 100 seeds, a fourth function and grid-UCB up to $T = 10^6$.
# ```
#
# ## The question
#
# A Lipschitz bandit is a bandit problem whose arms are the points of a metric space, here the cube
# $[0,1]^d$, and whose mean reward $f$ is a Lipschitz function of the arm. The learner pulls one
# point per round, sees a noisy reward, and wants to lose as little as possible against the best
# point. Because nearby arms have nearby rewards, the learner can treat a small cube of arms as
# one arm; the art is to make cubes small only where the reward is high. The *zooming* algorithm
# {cite:p}`kleinberg2008multi`, HOO {cite:p}`bubeck2011x` and BLiN {cite:p}`feng2022lipschitz`
# all do this and reach regret $\tilde O(T^{(d_z+1)/(d_z+2)})$, where $d_z$, the *zooming
# dimension*, measures how many small cubes the near-optimal arms fill. That rate is optimal up to
# logarithmic factors.
#
# All of them keep a table: one entry (centre, count, mean) per active arm or cube. HOO adds a node
# to its tree every round, the zooming algorithm keeps every arm it has activated, and BLiN keeps
# every cube that has not yet been eliminated. {cite:t}`zhu2025lipschitz` ask whether that table is
# necessary, in the spirit of streaming algorithms for finite-armed bandits that keep a single
# arm in memory {cite:p}`assadi2020exploration`. Their answer, in the abstract: an algorithm
# called Log-Li reaches the optimal regret with only $O(\log T)$ bits of memory, no algorithm
# with the optimal regret can use $o(\log T)$ bits, and in simulations Log-Li's regret is
# "comparable to the state-of-the-art" while its memory is "reduced by orders of magnitude". We reconstruct such an algorithm, count the
# bits it actually stores, and test the three measurable claims: the regret exponent, regret close
# to a table-keeping baseline, and memory that grows like $\log T$ and ends far below the
# baselines'.
#
# ## The setting and the theorem
#
# ```{prf:definition} Lipschitz bandit
# :label: lsl-def-bandit
#
# The arm space is $\mathcal X = [0,1]^d$ with the max-norm distance
# $\|x - y\|_\infty$. The mean reward $f: \mathcal X \to [0,1]$ is 1-Lipschitz,
# $|f(x) - f(y)| \le \|x - y\|_\infty$, and has a maximiser $x^\star$ with value $f^\star$. In
# round $t = 1, \dots, T$ the learner pulls $x_t$ and observes $y_t = f(x_t) + \varepsilon_t$ with
# independent noise $\varepsilon_t \sim \mathcal N(0, \sigma^2)$, $\sigma$ known. The gap of an arm
# is $\Delta(x) = f^\star - f(x)$ and the (pseudo-)regret is
#
# $$
# \mathrm{Reg}(T) = \sum_{t=1}^T \Delta(x_t).
# $$ (eq-lsl-regret)
# ```
#
# ```{prf:definition} Zooming dimension
# :label: lsl-def-zooming
#
# For $r > 0$ let $N(r)$ be the number of dyadic cubes of edge $r$ needed to cover the
# near-optimal set $\{x : \Delta(x) \le c\, r\}$ (for a fixed constant $c$; we use the $c = 5$ that
# our proof sketch needs). The zooming dimension is the smallest $d_z \ge 0$ with
# $N(r) \le C\, r^{-d_z}$ for all $r \le 1$ and some constant $C$.
# ```
#
# The zooming dimension is at most $d$ and can be much smaller. Three examples run below, all with
# the maximiser at an irrational point ($x^\star_1 = 0.618\ldots$) so that no dyadic centre hits it:
#
# * **cone-1d**, $f(x) = 0.9 - |x - x^\star|$ on $[0,1]$: the set $\{\Delta \le cr\}$ is an interval
#   of length $2cr$, covered by a bounded number of $r$-cubes, so $d_z = 0$;
# * **quad-1d**, $f(x) = 0.9 - \tfrac12 (x - x^\star)^2$: the interval has length
#   $2\sqrt{2cr}$, so $N(r) \propto r^{-1/2}$ and $d_z = \tfrac12$;
# * **ridge-2d**, $f(x) = 0.9 - |x_1 - x^\star_1|$ on $[0,1]^2$: a strip of width $2cr$ and length
#   $1$, covered by $\propto r^{-1}$ squares, so $d_z = 1$ (every point of the line $x_1 = x^\star_1$
#   is optimal).
#
# The `paper` preset adds **cone-2d**, $f(x) = 0.9 - \|x - x^\star\|_\infty$, with $d_z = 0$ in
# the plane.
#
# ```{prf:theorem} Optimal regret (zooming, HOO, BLiN)
# :label: lsl-thm-regret
#
# There are algorithms with $\mathbb E\,\mathrm{Reg}(T) = \tilde O(T^{(d_z+1)/(d_z+2)})$, and no
# algorithm can do better than $\Omega(T^{(d_z+1)/(d_z+2)})$ on every instance with zooming
# dimension $d_z$ {cite:p}`kleinberg2008multi,bubeck2011x,feng2022lipschitz`. For the cube
# elimination analysed below the bound is
#
# $$
# \mathrm{Reg}(T) = O\big( T^{\frac{d_z+1}{d_z+2}} (\sigma^2 \log T)^{\frac{1}{d_z+2}} \big).
# $$ (eq-lsl-rate)
# ```
#
# ```{prf:theorem} Log-space Lipschitz bandits (Zhu and Huang, as stated in the abstract)
# :label: lsl-thm-logli
#
# The algorithm Log-Li reaches regret $\tilde O(T^{(d_z+1)/(d_z+2)})$ while storing $O(\log T)$
# bits. Conversely, every algorithm whose regret is optimal in this sense uses $\Omega(\log T)$
# bits of memory.
# ```
#
# We do not reproduce the proof of the lower bound. Our intuition for it is short: to lose only
# $T^{(d_z+1)/(d_z+2)}$ the learner must end up pulling arms within about
# $\epsilon = T^{-1/(d_z+2)}$ of the optimum, and a learner with $s$ bits of state can only
# distinguish $2^s$ situations, so it can point at no more than $2^s$ different small cubes; there
# are about $\epsilon^{-d}$ candidate locations for the optimum, which forces
# $s \gtrsim \tfrac{d}{d_z+2} \log_2 T$.
#
# **Why elimination reaches {eq}`eq-lsl-rate`.** Play the centre of a dyadic cube of edge
# $r_k = 2^{-k}$ for $n_k$ rounds and form the mean $\hat\mu$. With
#
# $$
# n_k = \Big\lceil \frac{16 \sigma^2 \ln T}{r_k^2} \Big\rceil, \qquad
# c_k = \sigma \sqrt{\frac{4 \ln T}{n_k}} \le \frac{r_k}{2},
# $$ (eq-lsl-schedule)
#
# the Gaussian tail gives $|\hat\mu - f(\text{centre})| \le c_k$ except with probability
# $2T^{-2}$, so all of the at most $T$ tests in a run are right except with probability $2/T$.
# A cube may contain an arm as good as a reference arm with lower confidence bound $L$ only if
# $\hat\mu + c_k + r_k/2 \ge L$ (the centre is within $r_k/2$ of every point). Keep the cubes that
# pass this test, split them, and go on. On the good event the cube holding $x^\star$ always passes,
# and a cube that passes at depth $k$ has $\Delta \le c\, r_k$ on all of it, for a constant $c$.
# So depth $k$ costs at most $N(r_k)\, n_k \cdot c\, r_k \propto \sigma^2 \ln T\, r_k^{-(d_z+1)}$
# regret. Summed over $k \le K$ this is dominated by the last depth; the rounds spent below
# depth $K$ cost at most $c\, r_K T$. Balancing $\sigma^2 \ln T\, r_K^{-(d_z+1)}$ with $r_K T$
# gives $r_K = (\sigma^2 \ln T / T)^{1/(d_z+2)}$ and {eq}`eq-lsl-rate`. The $(\ln T)^{1/(d_z+2)}$
# factor adds about $0.04$ to $0.08$ to a log-log slope fitted over $10^4 \le T \le 10^8$; our
# tolerances below account for it.
#
# ```{note}
# **Where this chapter departs from the paper.** We could not obtain the paper's text or code;
# only its abstract and third-party notes about its structure (an algorithm and a "comparison
# arm", rounds that revisit shallow cubes, a double geometric sum in the analysis).
# * **The algorithm is our reconstruction**, not Log-Li's pseudo-code: ID-Elim
#   ({prf:ref}`lsl-alg-idelim`) regenerates the elimination tree depth-first from the root every
#   round and compares every cube with one stored comparison arm. It has the properties the abstract
#   claims, but Log-Li's constants, tests and schedule may differ.
# * **The schedule** {eq}`eq-lsl-schedule` (sample counts, confidence radii, test) is ours and the
#   same for ID-Elim and the BLiN-style baseline. BLiN proper {cite:p}`feng2022lipschitz` uses a
#   batch schedule tuned to $O(\log\log T)$ batches; ours halves the edge every round, the
#   simplest elimination with the same regret rate.
# * **Memory is counted, not estimated**: every stored number is held in fixed point at resolution
#   $2^{-\lceil\log_2 T\rceil}$, and its bit width is taken from the largest value it reached.
#   (The simulation itself computes in float64 and rounds the stored reals to that grid.)
# * **Pulls are simulated in blocks**: $n$ pulls of one arm are one Gaussian draw of their sum,
#   which is all the algorithms ever use; the regret is the pseudo-regret {eq}`eq-lsl-regret`.
# * **The paper's simulation setup** (its functions, horizons, baselines, memory measure) was not
#   available; ours is our own choice and the comparison table says so row by row.
# * **HOO and zooming are not simulated**; their memory is drawn as the analytic count
#   (one node per round for HOO).
# ```
#
# ## The algorithm
#
# Elimination in the style of BLiN keeps the list of surviving cubes of the current depth: that
# list is the memory. The observation behind a log-space algorithm is that the list need not be
# stored if it can be *recomputed*. Walk the dyadic tree depth-first, re-testing each cube with
# fresh samples, and descend only into cubes that pass; the cubes visited at depth $k$ are then
# the survivors' children, found again in every round. A depth-first walk needs no stack in a
# dyadic tree: the next node after $(k, i)$ is found by climbing while $i$ is the last child and
# then moving to the next sibling. The test needs a reference value, and one arm suffices: the
# cube with the highest lower confidence bound seen so far (the *comparison arm*).
#
# ```{prf:algorithm} ID-Elim (iterative-deepening elimination, our reconstruction)
# :label: lsl-alg-idelim
#
# **State:** round $m$; time $t$; current node (depth $k$, cell coordinates
# $i \in \{0,\dots,2^k-1\}^d$); pulls $j$ and reward sum $S$ of the current node; comparison arm
# (depth $k^\circ$, coordinates $i^\circ$, lower bound $L^\circ$). That is $7 + 2d$ numbers.
#
# For $m = 1, 2, \dots$ until $t = T$, walk the tree from the root $(0, 0)$:
# 1. pull the centre of the current cube $n_k$ times (fewer if the budget ends), accumulating $S$;
#    $\hat\mu = S / n_k$;
# 2. if $\hat\mu - c_k > L^\circ$, the current cube becomes the comparison arm;
# 3. if $\hat\mu + c_k + r_k/2 \ge L^\circ$ and $k < m$, descend to the first child
#    $(k+1, 2i)$; otherwise move to the next node: climb while every coordinate of $i$ is odd
#    (the last child), stop the round at the root, else increment the child digits of $i$.
# ```
#
# Every integer in the state is at most $T$ (a depth is at most $\log_2 T$, a coordinate below
# $2^k \le T$) and the two real numbers are stored to precision $1/T$, so the state is
# $O(d \log T)$ bits, whatever the horizon. The price is re-testing: in round $m$ the walk
# re-tests every surviving cube of every depth $k \le m$. The comparison arm's bound only grows,
# and in round $m - 1$ the optimal cube of depth $m - 1$ was visited, so $L^\circ \ge f^\star -
# 3 r_m$ throughout round $m$; a cube of depth $k \le m$ that passes then has $\Delta \le 5 r_k$
# everywhere. Round $m$ therefore costs $\sum_{k \le m} O(2^{k(d_z+1)}) = O(2^{m(d_z+1)})$, and
# summed over rounds the extra factor over a single pass is at most
# $\big(1 - 2^{-(d_z+1)}\big)^{-1} \le 2$: the same rate {eq}`eq-lsl-rate` with a slightly larger
# constant. This double geometric sum is, we believe, the one the paper's analysis contains.

# %% tags=["parameters"]
seed = 0
device = "cpu"  # numpy only; the device just has to be valid
progress = False
functions = ["cone-1d", "quad-1d", "ridge-2d"]  # reward functions, see the text
horizons = [10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]  # T, one run each
n_seeds = 20  # runs per function and horizon for the elimination algorithms
ucb_horizons = [10_000, 100_000]  # T for grid UCB (one pull per loop step, slow)
ucb_seeds = 8  # runs per function and horizon for grid UCB
ucb_max_dim = 1  # grid UCB runs on functions of at most this dimension
noise_sd = 0.1  # sigma, Gaussian noise on every reward

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


FUNCTIONS = {  # name: (dimension d, zooming dimension d_z)
    "cone-1d": (1, 0.0),
    "quad-1d": (1, 0.5),
    "ridge-2d": (2, 1.0),
    "cone-2d": (2, 0.0),
}
lib.check_bool("progress", progress)
if not isinstance(functions, list) or not functions:
    raise ValueError(f"parameter `functions` = {functions!r} must be a non-empty list")
for name in functions:
    lib.check_choice("functions", name, FUNCTIONS)
if len(set(functions)) != len(functions):
    raise ValueError(f"parameter `functions` = {functions!r} has a repeated entry")
lib.check_int_list(
    "horizons", horizons, low=1000, high=10**9, min_len=3, increasing=True
)
lib.check_int("n_seeds", n_seeds, low=2, high=1000)
lib.check_int_list(
    "ucb_horizons", ucb_horizons, low=100, high=10**6, min_len=1, increasing=True
)
lib.check_int("ucb_seeds", ucb_seeds, low=1, high=100)
lib.check_int("ucb_max_dim", ucb_max_dim, low=0, high=2)
lib.check_float("noise_sd", noise_sd, low=0.0, high=1.0, low_open=True)
if not set(ucb_horizons) <= set(horizons):
    raise ValueError(
        f"parameter `ucb_horizons` = {ucb_horizons!r} must be a subset of `horizons`"
    )
ucb_steps = ucb_seeds * sum(ucb_horizons) * len(functions)
if ucb_steps > 2e8:
    raise ValueError(
        f"parameters `ucb_horizons`, `ucb_seeds`: {ucb_steps:.1e} UCB pulls would "
        "take hours; keep ucb_seeds * sum(ucb_horizons) * len(functions) <= 2e8"
    )
rng, device = lib.setup(seed, device)

# %% [markdown]
# **The reward functions.** Every function has the form $f = 0.9 - \Delta$ with the gap $\Delta$
# of the list above; `gap(name, x)` evaluates $\Delta$ at points `x` of shape `[..., d]`.

# %%
X_STAR = np.array([0.6180339887, 0.2854101966])  # irrational, off every dyadic centre
F_STAR = 0.9


def gap(name, x):
    """Delta(x) = f_star - f(x) for the named function, x of shape [..., d]."""
    z = np.abs(x - X_STAR[: x.shape[-1]])
    if name.startswith("cone"):
        return z.max(-1)
    if name == "quad-1d":
        return 0.5 * z[..., 0] ** 2
    return z[..., 0]  # ridge-2d: only the first coordinate matters


def n_pulls(k, log_t):
    """n_k of eq. (eq-lsl-schedule): pulls of a depth-k cube."""
    return np.ceil(16 * noise_sd**2 * log_t * 4.0**k).astype(np.int64)


def radius(n, log_t):
    """c_k of eq. (eq-lsl-schedule) for n pulls."""
    return noise_sd * np.sqrt(4 * log_t / np.maximum(n, 1))


def frac_bits(horizon):
    """Fixed-point resolution 2**-F of every stored real, F = ceil(log2 T)."""
    return np.ceil(np.log2(horizon)).astype(np.int64)


def int_bits(v):
    """Bits of an unsigned integer whose largest value was v."""
    return np.maximum(1, np.ceil(np.log2(np.asarray(v, float) + 1))).astype(np.int64)


def fixed_bits(v_max, horizon):
    """Bits of a signed fixed-point real with |value| <= v_max, resolution 1/T."""
    return 1 + int_bits(np.floor(v_max)) + frac_bits(horizon)


# %% [markdown]
# **Pulling a cube.** The algorithms never look at single rewards of a cube, only at the sum of
# its $n$ pulls, so we draw that sum directly: $S \sim \mathcal N(n f(x), n\sigma^2)$ is exactly
# the law of $n$ noisy pulls, and a run at $T = 10^8$ costs a few thousand draws. The sum is then
# rounded to the fixed-point grid of the stored state.
#
# **ID-Elim**, {prf:ref}`lsl-alg-idelim`, run in lockstep for many independent runs (seeds and
# horizons): each array below holds one entry per run, so the variables named in the algorithm's
# state *are* the arrays of this function, and their running maxima give the bits each one needs.

# %%
def id_elim(name, horizon):
    """Runs ID-Elim once per entry of `horizon` (int array); returns regret and bits."""
    d = FUNCTIONS[name][0]
    T = np.asarray(horizon, np.int64)
    runs = len(T)
    log_t, unit = np.log(T), 2.0 ** -frac_bits(T)
    # the state: 7 + 2d numbers per run
    m, t = np.ones(runs, np.int64), np.zeros(runs, np.int64)
    k, i = np.zeros(runs, np.int64), np.zeros((runs, d), np.int64)
    king_k, king_i = np.zeros(runs, np.int64), np.zeros((runs, d), np.int64)
    king_lcb = np.full(runs, -1.0)  # below every reward: the first cube becomes king
    # instrumentation: regret and the largest value each variable reached
    regret = np.zeros(runs)
    top = {v: np.zeros(runs) for v in ("m", "t", "k", "i", "j", "S", "lcb")}
    live = t < T
    while live.any():
        r = 0.5**k
        n = np.minimum(n_pulls(k, log_t), T - t)  # j runs from 1 to n
        delta = gap(name, (i + 0.5) * r[:, None])
        S = n * (F_STAR - delta) + noise_sd * np.sqrt(n) * rng.standard_normal(runs)
        S = np.round(S / unit) * unit
        regret += np.where(live, n * delta, 0.0)
        t = np.where(live, t + n, t)
        mu, c = S / np.maximum(n, 1), radius(n, log_t)
        lcb = np.round((mu - c) / unit) * unit
        crown = live & (lcb > king_lcb)
        king_k, king_lcb = np.where(crown, k, king_k), np.where(crown, lcb, king_lcb)
        king_i = np.where(crown[:, None], i, king_i)
        down = live & (mu + c + r / 2 >= king_lcb) & (k < m)
        for v, x in (("S", np.abs(S)), ("j", n), ("lcb", np.abs(king_lcb))):
            top[v] = np.maximum(top[v], np.where(live, x, 0))
        k, i = np.where(down, k + 1, k), np.where(down[:, None], 2 * i, i)
        move = live & ~down
        while move.any():  # next node: climb past last children, then next sibling
            at_root = move & (k == 0)
            m = np.where(at_root, m + 1, m)
            last = move & ~at_root & (i & 1).all(-1)
            k, i = np.where(last, k - 1, k), np.where(last[:, None], i >> 1, i)
            carry = move & ~at_root & ~last
            for axis in range(d - 1, -1, -1):  # add 1 to the child digits
                odd = (i[:, axis] & 1) == 1
                i[:, axis] += np.where(carry, np.where(odd, -1, 1), 0)
                carry &= odd
            move = last
        live = t < T
        for v, x in (("m", m), ("t", t), ("k", k), ("i", i.max(-1))):
            top[v] = np.maximum(top[v], x)
    bits = (
        int_bits(top["m"])
        + int_bits(top["t"])
        + 2 * int_bits(top["k"])  # depth of the node and of the king
        + 2 * d * int_bits(top["i"])  # coordinates of the node and of the king
        + int_bits(top["j"])
        + fixed_bits(top["S"], T)
        + fixed_bits(top["lcb"], T)
    )
    return regret, bits, np.full(runs, 7 + 2 * d)


# %% [markdown]
# In the bit count the king's depth and the node's depth are both bounded by the deepest depth
# reached, and the king's coordinates by the node's.
#
# **The table-keeping baseline** is the same elimination done breadth first, as BLiN does: the
# surviving cubes of depth $k$ are all played, the best lower confidence bound *of that depth* is
# the reference, and the survivors' children form the next list. Its memory is the list: one index
# per coordinate and one mean per cube, plus three counters; we count the longest list.

# %%
def blin(name, horizon):
    """One run of BLiN-style elimination; returns regret, bits and scalars stored."""
    d = FUNCTIONS[name][0]
    log_t, unit = np.log(horizon), 2.0 ** -frac_bits(horizon)
    children = np.stack(np.meshgrid(*[[0, 1]] * d, indexing="ij"), -1).reshape(-1, d)
    cubes, k, t, regret = np.zeros((1, d), np.int64), 0, 0, 0.0
    bits, scalars = 0, 0
    while t < horizon:
        r, n = 0.5**k, int(n_pulls(k, log_t))
        cube_bits = d * max(1, k) + fixed_bits(1.0, horizon)  # index and mean
        bits = max(bits, len(cubes) * cube_bits)
        scalars = max(scalars, 2 * len(cubes))
        delta = gap(name, (cubes + 0.5) * r)
        played = np.clip(horizon - t - n * np.arange(len(cubes)), 0, n)
        regret += (played * delta).sum()
        t = min(horizon, t + n * len(cubes))
        if t >= horizon:
            break
        S = n * (F_STAR - delta) + noise_sd * np.sqrt(n) * rng.standard_normal(
            len(cubes)
        )
        mu, c = np.round(S / n / unit) * unit, radius(n, log_t)
        keep = cubes[mu + c + r / 2 >= (mu - c).max()]
        cubes = (2 * keep[:, None, :] + children[None]).reshape(-1, d)
        k += 1
    counters = int_bits(horizon) + int_bits(k) + fixed_bits(1.0, horizon)
    return regret, bits + counters, scalars + 3


# %% [markdown]
# **The uniform-discretisation baseline** plays UCB1 {cite:p}`auer2002finite` on a grid of
# $K = \lceil (T/\ln T)^{1/(d+2)} \rceil^d$ cube centres, the grid size that balances the
# discretisation error $T/K^{1/d}$ against UCB's $\sqrt{KT\ln T}$. It stores a count and a sum per
# arm. It needs one loop step per pull, so it runs only at the horizons in `ucb_horizons`; all
# functions of one dimension share the loop.

# %%
def grid_ucb(names, horizon, n_runs, chunk=4096):
    """UCB1 on a grid; runs [function, run]; returns regret [function, run], K."""
    d = FUNCTIONS[names[0]][0]
    side = int(np.ceil((horizon / np.log(horizon)) ** (1 / (d + 2))))
    axis = (np.arange(side) + 0.5) / side
    grid = np.stack(np.meshgrid(*[axis] * d, indexing="ij"), -1).reshape(-1, d)
    delta = np.repeat(np.stack([gap(nm, grid) for nm in names]), n_runs, 0)
    rows = np.arange(len(delta))
    count = np.ones_like(delta)  # one pull of every arm to start
    total = F_STAR - delta + noise_sd * rng.standard_normal(delta.shape)
    regret = delta.sum(1)
    for start in range(grid.shape[0], horizon, chunk):
        noise = noise_sd * rng.standard_normal((min(chunk, horizon - start), len(rows)))
        bonus = noise_sd * np.sqrt(2 * np.log(np.arange(start, start + len(noise)) + 1))
        for b, z in zip(bonus, noise):
            arm = np.argmax(total / count + b / np.sqrt(count), 1)
            count[rows, arm] += 1
            total[rows, arm] += F_STAR - delta[rows, arm] + z
            regret += delta[rows, arm]
    return regret.reshape(len(names), n_runs), grid.shape[0]


def grid_ucb_bits(horizon, d):
    """Bits of grid UCB: a count and a sum per arm, and the time."""
    side = int(np.ceil((horizon / np.log(horizon)) ** (1 / (d + 2))))
    arm_bits = int_bits(horizon) + fixed_bits(horizon, horizon)
    return side**d * arm_bits + int_bits(horizon), 2 * side**d + 1


# %% [markdown]
# ## The experiment
#
# Every function is run at every horizon with `n_seeds` independent runs of each elimination
# algorithm. Each run at horizon $T$ is a separate run tuned to $T$ (the schedule
# {eq}`eq-lsl-schedule` uses $\ln T$), as the theorems assume.

# %%
clock = time.perf_counter()
T_all = np.asarray(horizons, np.int64)
reg, bits, scal = {}, {}, {}  # [algorithm, function] -> [horizon, seed]
for name in lib.progress(functions, enabled=progress, desc="elimination"):
    runs = np.repeat(T_all, n_seeds)
    out = id_elim(name, runs)
    for key, val in zip((reg, bits, scal), out):
        key["ID-Elim", name] = val.reshape(len(T_all), n_seeds)
    out = np.array([blin(name, T) for T in runs], float).T
    for key, val in zip((reg, bits, scal), out):
        key["BLiN-style", name] = val.reshape(len(T_all), n_seeds)
t_elim = time.perf_counter() - clock
clock = time.perf_counter()
ucb_names = [nm for nm in functions if FUNCTIONS[nm][0] <= ucb_max_dim]
ucb_reg = {}  # function -> [ucb horizon, seed]
for dim in sorted({FUNCTIONS[nm][0] for nm in ucb_names}):
    group = [nm for nm in ucb_names if FUNCTIONS[nm][0] == dim]
    per_t = [grid_ucb(group, T, ucb_seeds)[0] for T in ucb_horizons]
    for g, nm in enumerate(group):
        ucb_reg[nm] = np.stack([p[g] for p in per_t])
t_ucb = time.perf_counter() - clock
print(f"elimination algorithms: {t_elim:.1f} s wall-clock")
print(f"grid UCB: {t_ucb:.1f} s wall-clock")


# %% [markdown]
# Mean regret over the runs (3 significant digits; the standard error is about 1% of the mean
# for the elimination algorithms), plotted in {numref}`fig-log-space-lipschitz-bandits-regret`:

# %%
def mean_reg(alg, name):
    return reg[alg, name].mean(1)


def sig3(x):
    """x rounded to 3 significant digits, printed as a whole number."""
    return f"{float(f'{x:.3g}'):,.0f}"


ucb_index = [horizons.index(T) for T in ucb_horizons]
for name in functions:
    print(f"{name} (d_z = {FUNCTIONS[name][1]:g})")
    print("  T          ID-Elim     BLiN-style  grid UCB")
    for h, T in enumerate(horizons):
        ucb = "-"
        if name in ucb_reg and T in ucb_horizons:
            ucb = sig3(ucb_reg[name][ucb_horizons.index(T)].mean())
        row = sig3(mean_reg("ID-Elim", name)[h]).ljust(12)
        row += sig3(mean_reg("BLiN-style", name)[h]).ljust(12) + ucb
        print(f"  {T:<10.0e} {row}")


# %% [markdown]
# The log-log slope of the mean regret against $T$, fitted over all horizons, is the measured
# regret exponent ("raw" below); the theory's is $(d_z+1)/(d_z+2)$ ({eq}`eq-lsl-rate`), plus a
# few hundredths for the logarithmic factor. The "log-corrected" slope fits
# $\mathrm{Reg}(T) / (\ln T)^{1/(d_z+2)}$ instead, the power of $T$ that {eq}`eq-lsl-rate` predicts
# with its logarithm divided out.

# %%
def slope(y, x=T_all):
    return np.polyfit(np.log(x), np.log(y), 1)[0]


exponent, corrected = {}, {}
print("function   theory  raw: ID-Elim  BLiN-style  grid UCB | log-corrected: ID-Elim")
for name in functions:
    dz = FUNCTIONS[name][1]
    theory = (dz + 1) / (dz + 2)
    exponent[name] = {a: slope(mean_reg(a, name)) for a in ("ID-Elim", "BLiN-style")}
    log_factor = np.log(T_all) ** (1 / (dz + 2))
    corrected[name] = slope(mean_reg("ID-Elim", name) / log_factor)
    ucb = "-"
    if name in ucb_reg and len(ucb_horizons) > 1:
        ucb = f"{slope(ucb_reg[name].mean(1), np.asarray(ucb_horizons)):.2f}"
    e = exponent[name]
    print(
        f"{name:<10} {theory:.2f}         {e['ID-Elim']:.2f}     {e['BLiN-style']:.2f}"
        f"        {ucb:<4}   |                {corrected[name]:.2f}"
    )

# %% mystnb={"figure": {"caption": "Cumulative regret at the horizon against the horizon T, log-log, mean over the runs, one panel per reward function. ID-Elim (stores 7 + 2d numbers) and the BLiN-style elimination (stores every surviving cube) lie close together and follow the theory's slope (dotted, (d_z+1)/(d_z+2), anchored at ID-Elim's first point); grid UCB, where it ran, is lower at these horizons.", "name": "fig-log-space-lipschitz-bandits-regret"}} tags=["hide-input"]
fig, axes = lib.subplots(1, len(functions), width=4.0 * len(functions), height=3.6)
axes = np.atleast_1d(axes)
for ax, name in zip(axes, functions):
    for c, alg in enumerate(("ID-Elim", "BLiN-style")):
        ax.plot(horizons, mean_reg(alg, name), "o-", color=lib.PALETTE[c], label=alg)
    if name in ucb_reg:
        y = ucb_reg[name].mean(1)
        ax.plot(ucb_horizons, y, "s-", color=lib.PALETTE[2], label="grid UCB")
    theory = (FUNCTIONS[name][1] + 1) / (FUNCTIONS[name][1] + 2)
    ref = mean_reg("ID-Elim", name)[0] * (T_all / T_all[0]) ** theory
    ax.plot(horizons, ref, "k:", lw=1, label=f"slope {theory:.2f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(f"{name}, d_z = {FUNCTIONS[name][1]:g}")
    ax.set_xlabel("horizon T (rounds)")
    ax.set_ylabel("regret at T")
    ax.legend(fontsize=8)
lib.show(fig)

# %% [markdown]
# **Memory.** For every run the instrumented state gives a bit count: the state of
# {prf:ref}`lsl-alg-idelim` for ID-Elim, the longest cube list for BLiN-style, the arm table for
# grid UCB. We print the largest count over the runs at each horizon and plot it in
# {numref}`fig-log-space-lipschitz-bandits-memory`.

# %%
mem = {}  # [algorithm, function] -> largest bits over the runs, per horizon
for name in functions:
    d = FUNCTIONS[name][0]
    mem["ID-Elim", name] = bits["ID-Elim", name].max(1)
    mem["BLiN-style", name] = bits["BLiN-style", name].max(1).astype(np.int64)
    mem["grid UCB", name] = np.array([grid_ucb_bits(T, d)[0] for T in horizons])
    print(
        f"{name}: bits (stored numbers) at T = "
        + ", ".join(f"{T:.0e}" for T in horizons)
    )
    for alg in ("ID-Elim", "BLiN-style"):
        n_num = scal[alg, name].max(1).astype(int)
        row = ", ".join(f"{b:d} ({s})" for b, s in zip(mem[alg, name], n_num))
        print(f"  {alg:<11} {row}")
    row = ", ".join(
        f"{b:d} ({grid_ucb_bits(T, d)[1]})"
        for b, T in zip(mem["grid UCB", name], horizons)
    )
    print(f"  {'grid UCB':<11} {row}")

# %% mystnb={"figure": {"caption": "Memory in bits against the horizon T, log-log. ID-Elim (solid) stores the same 7 + 2d numbers at every horizon, each a little wider as T grows; the BLiN-style list (dashed) grows with T when d_z > 0, the grid-UCB table (dash-dot, counted from its size, d = 1 and d = 2) grows like T^(d/(d+2)), and HOO (dotted, analytic, one node of F = log2 T bits per round) like T.", "name": "fig-log-space-lipschitz-bandits-memory"}} tags=["hide-input"]
fig, ax = lib.subplots(width=6.5, height=4.4)
for c, name in enumerate(functions):
    color = lib.PALETTE[c]
    ax.plot(horizons, mem["ID-Elim", name], "o-", color=color, label=f"ID-Elim, {name}")
    ax.plot(
        horizons,
        mem["BLiN-style", name],
        "s--",
        color=color,
        label=f"BLiN-style, {name}",
    )
for d in sorted({FUNCTIONS[nm][0] for nm in functions}):
    y = [grid_ucb_bits(T, d)[0] for T in horizons]
    ax.plot(horizons, y, "-.", color="0.4", lw=1 + 0.5 * d, label=f"grid UCB, d = {d}")
ax.plot(horizons, T_all * frac_bits(T_all), "k:", label="HOO (analytic)")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("horizon T (rounds)")
ax.set_ylabel("memory (bits)")
ax.legend(fontsize=7, ncol=2)
lib.show(fig)

# %% [markdown]
# ID-Elim's count grows because its counters and fixed-point numbers get wider, by a constant
# number of bits per doubling of $T$: its bits divided by $\log_2 T$ stay nearly constant, while the
# BLiN-style list's grow whenever $d_z > 0$.

# %%
log2_t = np.log2(T_all)
print("bits / log2 T at the smallest and largest horizon")
for name in functions:
    a, b = mem["ID-Elim", name] / log2_t, mem["BLiN-style", name] / log2_t
    print(
        f"  {name:<9} ID-Elim {a[0]:.1f} -> {a[-1]:.1f}   "
        f"BLiN-style {b[0]:.1f} -> {b[-1]:.1f}"
    )

# %% [markdown]
# ## What we reproduced
#
# All checks use means over the runs (regret) or the largest count over the runs (memory). The
# tolerances were written with the checks, before the first run, and were checked, not changed,
# on seeds 0–9; the one change we made, to the exponent test, is described in its bullet:
#
# * **Exponent**: $|\text{slope} - (d_z+1)/(d_z+2)| \le 0.1$ for every function, with the
#   log-corrected slope. The seed-to-seed spread of a slope is about $0.01$, and a wrong
#   algorithm misses by more: grid UCB's slope is $0.92$ on cone-1d (its discretisation bias, at
#   the horizons where it ran), uniform exploration has slope $1$. We first tested the raw slope;
#   it passes on the three default functions (deviations $+0.05$, $+0.05$, $-0.02$ on seed 0) but
#   sits at the edge ($+0.10$) on cone-2d, where the $2^d$ children of every cube make the
#   lower-order terms large at $T \le 10^5$. The log-corrected slope is the quantity
#   {eq}`eq-lsl-rate` actually predicts; its deviations are printed below the figures.
# * **Regret against the table-keeping baseline**: ID-Elim's mean regret at most $1.5$ times
#   BLiN-style's at every horizon and function. The proof sketch allows a factor up to about $2$
#   for the re-tests; the ratios seen are $0.67$–$1.36$ over seeds 0–9.
# * **Regret against the best baseline**, grid UCB included, at the horizons where it ran: within
#   a factor $2$. This is the reading of "comparable to the state of the art" that includes the
#   simplest baseline; it does **not** hold here and is recorded as not reproduced.
# * **Memory grows like $\log T$**: ID-Elim stores the same $7 + 2d$ numbers at every horizon,
#   and its bits per $\log_2 T$ change by less than $25\%$ between the smallest and the largest
#   horizon. Over four decades a count proportional to $T^{\alpha}$ changes this ratio by
#   $10^{4\alpha}/2$: by $1.26$ for $\alpha = 0.1$ and $3.2$ for $\alpha = 0.2$; the BLiN-style
#   list on quad-1d changes it by a factor of $5$.
# * **Orders of magnitude**, read as at least $100\times$ fewer bits at the largest horizon:
#   against the BLiN-style list on the function with $d_z = 1$ (holds), against grid UCB on every
#   function (not reproduced: $87\times$ on cone-1d, $94\times$ on quad-1d, so about two orders
#   of magnitude but not $100\times$), and against the BLiN-style list on quad-1d, $d_z = \tfrac12$
#   (not reproduced: $40\times$). On cone-1d ($d_z = 0$) the BLiN-style list stays $19$ numbers
#   long and the factor is $2$.

# %%
ratio = {
    name: mean_reg("ID-Elim", name) / mean_reg("BLiN-style", name) for name in functions
}
dev = {
    name: corrected[name] - (FUNCTIONS[name][1] + 1) / (FUNCTIONS[name][1] + 2)
    for name in functions
}
best = {}  # ID-Elim regret / best baseline regret at the UCB horizons
for name in ucb_reg:
    rows = [mean_reg("BLiN-style", name)[ucb_index], ucb_reg[name].mean(1)]
    best[name] = mean_reg("ID-Elim", name)[ucb_index] / np.min(rows, 0)
per_log = {nm: mem["ID-Elim", nm] / log2_t for nm in functions}
drift = max(v.max() / v.min() for v in per_log.values())
n_numbers = {nm: np.unique(scal["ID-Elim", nm]) for nm in functions}
gain = {
    (alg, nm): mem[alg, nm][-1] / mem["ID-Elim", nm][-1]
    for alg in ("BLiN-style", "grid UCB")
    for nm in functions
}
for name in functions:
    print(
        f"{name:<9} log-corrected slope - theory {dev[name]:+.2f}; "
        "ID-Elim / BLiN-style regret " + " ".join(f"{x:.2f}" for x in ratio[name])
    )
for name, b in best.items():
    print(
        f"{name:<9} ID-Elim / best baseline at T = {ucb_horizons}: "
        + " ".join(f"{x:.1f}" for x in b)
    )
for (alg, name), g in gain.items():
    print(
        f"{name:<9} bits of {alg} / bits of ID-Elim at T = {horizons[-1]:.0e}: {g:.0f}"
    )

# %%
claims = lib.Claims("log-space-lipschitz-bandits", paper="zhu2025lipschitz")
worst_dev = max(abs(v) for v in dev.values())
claims.add(
    "ID-Elim's regret exponent (log-log slope of Reg / (ln T)^(1/(d_z+2)) over the "
    f"horizons) is within 0.1 of (d_z+1)/(d_z+2) on every function "
    f"({', '.join(functions)}); largest deviation",
    worst_dev,
    "regret O~(T^((d_z+1)/(d_z+2)))",
    worst_dev <= 0.1,
    fmt="{:.2f}",
)
worst_ratio = max(r.max() for r in ratio.values())
claims.add(
    "ID-Elim's regret is at most 1.5 x the BLiN-style elimination's (which stores "
    "every surviving cube), every horizon and function; largest ratio",
    worst_ratio,
    "regret comparable to the state of the art",
    worst_ratio <= 1.5,
    fmt="{:.2f}",
)
if best:
    worst_best = max(b.max() for b in best.values())
    claims.add(
        "ID-Elim's regret is within 2 x the best baseline, grid UCB included, at "
        f"T = {ucb_horizons}; largest ratio",
        worst_best,
        "regret comparable to the state of the art",
        worst_best <= 2.0,
        fmt="{:.1f}",
        expect=False,
    )
same_numbers = all(len(v) == 1 for v in n_numbers.values())
claims.add(
    "ID-Elim stores the same 7 + 2d numbers at every horizon, and its bits / log2 T "
    "change by less than 25% over the horizons (largest max/min ratio)",
    drift,
    "O(log T) bits of memory",
    same_numbers and drift <= 1.25,
    fmt="{:.2f}",
)
ridge = [nm for nm in functions if FUNCTIONS[nm][1] == 1.0]
if ridge:
    g = gain["BLiN-style", ridge[0]]
    claims.add(
        f"At T = {horizons[-1]:.0e}, on {ridge[0]} (d_z = 1), the BLiN-style list "
        "needs >= 100 x ID-Elim's bits; ratio",
        g,
        "memory reduced by orders of magnitude",
        g >= 100,
        fmt="{:.0f}",
    )
g = min(gain["grid UCB", nm] for nm in functions)
claims.add(
    f"At T = {horizons[-1]:.0e} the grid-UCB table needs >= 100 x ID-Elim's bits on "
    "every function; smallest ratio",
    g,
    "memory reduced by orders of magnitude",
    g >= 100,
    fmt="{:.0f}",
    expect=False,
)
if "quad-1d" in functions:
    g = gain["BLiN-style", "quad-1d"]
    claims.add(
        f"At T = {horizons[-1]:.0e}, on quad-1d (d_z = 1/2), the BLiN-style list needs "
        ">= 100 x ID-Elim's bits; ratio",
        g,
        "memory reduced by orders of magnitude",
        g >= 100,
        fmt="{:.0f}",
        expect=False,
    )
claims.report()

# %% [markdown]
# ## How this compares with the paper
#
# | | paper {cite:p}`zhu2025lipschitz` (abstract) | this chapter |
# |---|---|---|
# | Algorithm | Log-Li (pseudo-code not available to us) | ID-Elim, our reconstruction: depth-first cube elimination regenerated from the root each round, one comparison arm |
# | Regret | $\tilde O(T^{(d_z+1)/(d_z+2)})$, optimal up to logs | over $T = 10^4$–$10^8$, raw log-log slopes $0.55, 0.65, 0.65$ for $d_z = 0, \tfrac12, 1$ (theory $0.50, 0.60, 0.67$); with the $(\ln T)^{1/(d_z+2)}$ factor divided out $0.51, 0.62, 0.63$ |
# | Memory | $O(\log T)$ bits | $7 + 2d$ numbers, about $6$ bits per $\log_2 T$ (83–166 bits for $T = 10^4$–$10^8$), counted from the values actually stored |
# | Lower bound | $\Omega(\log T)$ bits necessary | stated, not tested; intuition only |
# | Regret vs state of the art | "comparable" | within $1.5\times$ of a BLiN-style elimination (often closer); but $1.7$–$20\times$ **above** grid UCB at $T \le 10^5$, where elimination's conservative union-bound constants dominate (not reproduced in that reading) |
# | Memory vs state of the art | "orders of magnitude" less | at $T = 10^8$: $562\times$ less than the BLiN-style list when $d_z = 1$ (ridge-2d) and about $1200\times$ less than grid UCB in the plane; in one dimension $87$–$94\times$ less than grid UCB, $40\times$ less than BLiN-style when $d_z = \tfrac12$, and $2\times$ when $d_z = 0$, where BLiN's list stays short |
# | Simulation setup | not available to us | our functions, noise $\sigma = 0.1$, horizons, and bit accounting |
#
# **Regret.** The re-tests cost less than the proof sketch allows: on cone-1d ID-Elim pays about
# $1.25\times$ the breadth-first version, and on ridge-2d at large $T$ it pays *less*, probably because
# its comparison arm carries over between rounds and eliminates earlier than a per-depth
# reference.
# Both elimination algorithms lose to grid UCB at these horizons, by a wide margin on the smooth
# quad-1d: the schedule {eq}`eq-lsl-schedule` samples each cube $16\sigma^2\ln T/r^2$ times to make
# every one of up to $T$ tests right with probability $1 - 2T^{-2}$, while UCB's optimism pays only
# for the arms it actually needs to rule out. The paper's "comparable to the state of the art" most
# likely refers to table-keeping elimination or tree algorithms; we could not check which. The gap
# to grid UCB does not close with the horizon: in the `paper` preset, at $T = 10^6$, it reaches
# $44\times$.
#
# **Memory.** Whether the gain is "orders of magnitude" depends on the baseline and the function.
# HOO stores one node per round: against it the gain is many orders of magnitude at any $d_z$.
# Grid UCB stores a table of $T^{d/(d+2)}$ arms whatever $d_z$: at $T = 10^8$ that is about two
# orders of magnitude in one dimension (just short of the $100\times$ we asked for) and three in
# two. An elimination algorithm stores only its surviving cubes,
# about $r^{-d_z}$ of them at the finest scale, so against it the gain needs $d_z > 0$ and large
# $T$: two and a half orders on the ridge at $T = 10^8$, one and a half on quad-1d, and a factor
# of a few on the cones, where the surviving list stays a handful of cubes long.
#
# ## Try it
#
# * `-p noise_sd=0.3`: every cube needs nine times the pulls, so a given horizon is less
#   asymptotic. On seed 0 the largest exponent deviation grows to $0.13$ and the exponent claim
#   fails; ID-Elim stays within $1.31\times$ of the BLiN-style elimination; the memory gains at
#   $T = 10^8$ shrink ($208\times$ on ridge-2d, $19\times$ on quad-1d) because the surviving list
#   is shorter; grid UCB's lead in regret shrinks to $8.9\times$.
# * `-p 'horizons=[10_000, 100_000, 1_000_000]'`: over two decades the fitted exponents are
#   less accurate (rounds end in steps, so regret grows in a staircase): the largest deviation is
#   $0.10$ on seed 0 and the exponent claim fails at its edge. At $T = 10^6$ the BLiN-style list
#   on ridge-2d is $115\times$ ID-Elim's bits and grid UCB's $20\times$.
# * `-p 'functions=["cone-2d"]' -p ucb_max_dim=2`: the cone in the plane ($d_z = 0$). Its raw
#   slope is about $0.6$, not $0.5$: with $2^d = 4$ children per cube the lower-order terms are
#   large at small $T$; the log-corrected slope is within $0.1$. Grid UCB in the plane stores
#   $T^{1/2}$ arms, over $1000\times$ ID-Elim's bits at $T = 10^8$, so the grid-UCB memory claim,
#   recorded as not reproduced for the one-dimensional functions, now holds and the report says
#   so.
