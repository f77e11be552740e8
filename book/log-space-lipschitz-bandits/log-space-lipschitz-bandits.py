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
# for the elimination algorithms and a grid-UCB baseline at $T \le 10^5$, and ID-Elim alone at
# quarter-decade horizons from $10^6$ to $10^{10}$ for the regret exponent, in under a minute on
# a CPU; `make run CHAPTER=log-space-lipschitz-bandits PRESET=paper` runs half-decade horizons,
# 100 seeds, a fourth function and grid-UCB up to $T = 10^6$ ({paper-preset}`runtime` on two CPU
# cores).
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
# factor makes a log-log slope of the regret steeper than the exponent: over the horizons of our
# exponent fit it adds between {glue:}`lsl_log_shift_min` and {glue:}`lsl_log_shift_max`, and the
# fit divides it out.
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
# * **The exponent is fitted at horizons up to $10^{10}$**, beyond any scale the paper is likely
#   to have simulated: below about $10^6$ the shallow depths, where every cube survives, still
#   steepen the regret curve.
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
control = "none"  # or a deliberately wrong variant named in controls.yaml
functions = ["cone-1d", "quad-1d", "ridge-2d"]  # reward functions, see the text
horizons = [10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]  # T, one run each
rate_decades = [6, 10]  # log10 of the first and the last horizon of the rate fit
rate_steps = 4  # horizons per decade in the rate fit (ID-Elim only)
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
from myst_nb import glue


control = lib.check_control("log-space-lipschitz-bandits", control)
FUNCTIONS = {  # name: (dimension d, zooming dimension d_z)
    "cone-1d": (1, 0.0),
    "quad-1d": (1, 0.5),
    "ridge-2d": (2, 1.0),
    "cone-2d": (2, 0.0),
    "cone-edge-1d": (1, 0.0),  # the worst case of the survival test, see below
}
if control == "swapped-dz":  # the theory gives quad-1d d_z = 1 and ridge-2d d_z = 1/2
    FUNCTIONS["quad-1d"], FUNCTIONS["ridge-2d"] = (1, 1.0), (2, 0.5)
lib.check_bool("progress", progress)
if not isinstance(functions, list) or not functions:
    raise ValueError(f"parameter `functions` = {functions!r} must be a non-empty list")
for name in functions:
    lib.check_choice("functions", name, FUNCTIONS)
if len(set(functions)) != len(functions):
    raise ValueError(f"parameter `functions` = {functions!r} has a repeated entry")
if not {"quad-1d", "ridge-2d"} <= set(functions):  # claims 5 and 7 need them
    raise ValueError(
        f"parameter `functions` = {functions!r} must include quad-1d and ridge-2d"
    )
lib.check_int_list(
    "horizons", horizons, low=1000, high=10**9, min_len=3, increasing=True
)
lib.check_int("n_seeds", n_seeds, low=2, high=1000)
lib.check_int_list(
    "rate_decades", rate_decades, low=4, high=11, min_len=2, increasing=True
)
if len(rate_decades) != 2:
    raise ValueError(f"parameter `rate_decades` = {rate_decades!r} must have 2 entries")
lib.check_int("rate_steps", rate_steps, low=1, high=16)
lib.check_int_list(
    "ucb_horizons", ucb_horizons, low=100, high=10**6, min_len=1, increasing=True
)
lib.check_int("ucb_seeds", ucb_seeds, low=1, high=100)
lib.check_int("ucb_max_dim", ucb_max_dim, low=1, high=2)
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
X_EDGE = np.array([0.25])  # cone-edge-1d: on a cube boundary at every depth >= 2
F_STAR = 0.9


def x_star(name, d):
    """The maximiser of the named function in dimension d."""
    return X_EDGE if name == "cone-edge-1d" else X_STAR[:d]


def gap(name, x):
    """Delta(x) = f_star - f(x) for the named function, x of shape [..., d]."""
    z = np.abs(x - x_star(name, x.shape[-1]))
    if control == "no-flat-top" and name == "quad-1d":  # the cone's kink in its place
        return z[..., 0]
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
def id_elim(name, horizon, slack=None):
    """Runs ID-Elim once per entry of `horizon` (int array); `slack`, one per run,
    is the Lipschitz slack of the survival test in units of r (default 1/2).

    Returns, per run: the regret, the bits of the state, the count of numbers in the
    state, and how many survival tests a cube containing x_star failed."""
    d = FUNCTIONS[name][0]
    T = np.asarray(horizon, np.int64)
    runs = len(T)
    log_t, unit = np.log(T), 2.0 ** -frac_bits(T)
    zero = np.zeros(runs, np.int64)
    state = {  # all the walk carries from one cube to the next
        "m": zero + 1,
        "t": zero,
        "k": zero,
        "i": np.zeros((runs, d), np.int64),
        "j": zero,
        "S": np.zeros(runs),
        "king_k": zero,
        "king_i": np.zeros((runs, d), np.int64),
        "king_lcb": np.full(runs, -1.0),  # below every reward: the first cube is king
    }
    # instrumentation: regret, failed tests of a cube holding x_star, largest |value|
    regret, lost = np.zeros(runs), np.zeros(runs, np.int64)
    top = {v: np.zeros(runs) for v in state}
    if slack is None:  # the test's r/2 Lipschitz slack
        slack = np.full(runs, 0.0 if control == "no-slack" else 0.5)
    memo, memo_top = zero.copy(), zero.copy()  # cache-survivors: the list's length
    live = state["t"] < T
    while live.any():
        m, t, k, i = state["m"], state["t"], state["k"], state["i"]
        king_k, king_i, king_lcb = state["king_k"], state["king_i"], state["king_lcb"]
        r = 0.5**k
        depth = m if control == "same-pulls" else k  # same-pulls: n_m for every cube
        n = np.minimum(n_pulls(depth, log_t), T - t)  # j runs from 1 to n
        centre = (i + 0.5) * r[:, None]
        delta = gap(name, centre)
        S = n * (F_STAR - delta) + noise_sd * np.sqrt(n) * rng.standard_normal(runs)
        S = np.round(S / unit) * unit
        regret += np.where(live, n * delta, 0.0)
        t = np.where(live, t + n, t)
        mu, c = S / np.maximum(n, 1), radius(n, log_t)
        lcb = np.round((mu - c) / unit) * unit
        crown = live & (lcb > king_lcb)
        king_k, king_lcb = np.where(crown, k, king_k), np.where(crown, lcb, king_lcb)
        king_i = np.where(crown[:, None], i, king_i)
        passes = mu + c + slack * r >= king_lcb
        holds_x = (np.abs(centre - x_star(name, d)) <= r[:, None] / 2).all(-1)
        lost += live & holds_x & ~passes
        if control == "cache-survivors":  # keep the round's deepest survivors
            memo = memo + (live & passes & (k == m))
            memo_top = np.maximum(memo_top, memo)
        down = live & passes & (k < m)
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
        memo = np.where(m > state["m"], 0, memo)  # a new round starts a new list
        state = {
            "m": m,
            "t": t,
            "k": k,
            "i": i,
            "j": n,
            "S": S,
            "king_k": king_k,
            "king_i": king_i,
            "king_lcb": king_lcb,
        }
        for v, x in state.items():
            top[v] = np.maximum(top[v], np.abs(x).reshape(runs, -1).max(1))
        live = t < T
    reals = ("S", "king_lcb")  # fixed point at resolution 1/T; the rest are integers
    width = {v: fixed_bits(top[v], T) if v in reals else int_bits(top[v]) for v in top}
    per_run = {v: x.size // runs for v, x in state.items()}  # numbers per variable
    bits = sum(width[v] * per_run[v] for v in state)
    numbers = np.full(runs, sum(per_run.values()))
    if control == "cache-survivors":  # per cube: d coordinates of m bits, a mean
        bits = bits + memo_top * (d * int_bits(2 ** top["m"] - 1) + fixed_bits(1, T))
        numbers = numbers + memo_top * (d + 1)
    return regret, bits, numbers, lost


# %% [markdown]
# The count of stored numbers and the bits are read off the dictionary `state`, the only
# thing the loop carries from one cube to the next; each variable is as wide as the largest
# value it held in the run.
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
def grid_side(horizon, d):
    """Grid points per axis, ceil((T / ln T)^(1/(d+2)))."""
    if control == "textbook-grid":  # the log-free size T^(1/(d+2)) in its place
        return int(np.ceil(horizon ** (1 / (d + 2))))
    return int(np.ceil((horizon / np.log(horizon)) ** (1 / (d + 2))))


def grid_ucb(names, horizon, n_runs, chunk=4096):
    """UCB1 on a grid; runs [function, run]; returns regret [function, run], K."""
    d = FUNCTIONS[names[0]][0]
    side = grid_side(horizon, d)
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
    side = grid_side(horizon, d)
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
reg, bits, scal, lost = {}, {}, {}, {}  # [algorithm, function] -> [horizon, seed]
for name in lib.progress(functions, enabled=progress, desc="elimination"):
    runs = np.repeat(T_all, n_seeds)
    out = id_elim(name, runs)
    for key, val in zip((reg, bits, scal, lost), out):
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
# Mean regret over the runs (3 significant digits; the standard error of the mean is at most
# {glue:}`lsl_rel_se`% of the mean for the elimination algorithms), plotted in {numref}`fig-log-space-lipschitz-bandits-regret`:

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
rel_se = max(  # standard error of the mean regret / mean, elimination algorithms
    (reg[k].std(1, ddof=1) / np.sqrt(n_seeds) / reg[k].mean(1)).max() for k in reg
)
print(f"largest standard error / mean (elimination algorithms): {rel_se:.3f}")
glue("lsl_rel_se", round(float(100 * rel_se), 1), display=False)


# %% [markdown]
# The log-log slope of the mean regret against $T$, fitted over these horizons, is the measured
# regret exponent ("raw" below); the theory's is $(d_z+1)/(d_z+2)$ ({eq}`eq-lsl-rate`), plus a
# few hundredths for the logarithmic factor. The "log-corrected" slope fits
# $\mathrm{Reg}(T) / (\ln T)^{1/(d_z+2)}$ instead, the power of $T$ that {eq}`eq-lsl-rate` predicts
# with its logarithm divided out. Over $10^4 \le T \le 10^8$ these slopes are only a first look:
# the test of the exponent is the longer run of the next section.

# %%
def theory_dz(name):
    """The zooming dimension the theory assigns to the named function."""
    if control == "dz-blind":  # one zooming dimension, 1/2, for every function
        return 0.5
    return FUNCTIONS[name][1]


def theory_exponent(name):
    """(d_z + 1) / (d_z + 2), the exponent of eq. (eq-lsl-rate)."""
    return (theory_dz(name) + 1) / (theory_dz(name) + 2)


def slope(y, x=T_all):
    return np.polyfit(np.log(x), np.log(y), 1)[0]


exponent, corrected = {}, {}
print("function   theory  raw: ID-Elim  BLiN-style  grid UCB | log-corrected: ID-Elim")
for name in functions:
    exponent[name] = {a: slope(mean_reg(a, name)) for a in ("ID-Elim", "BLiN-style")}
    log_factor = np.log(T_all) ** (1 / (theory_dz(name) + 2))
    corrected[name] = slope(mean_reg("ID-Elim", name) / log_factor)
    ucb = "-"
    if name in ucb_reg and len(ucb_horizons) > 1:
        ucb = f"{slope(ucb_reg[name].mean(1), np.asarray(ucb_horizons)):.2f}"
    e = exponent[name]
    print(
        f"{name:<10} {theory_exponent(name):.2f}         {e['ID-Elim']:.2f}     "
        f"{e['BLiN-style']:.2f}        {ucb:<4}   |{corrected[name]:>20.2f}"
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
    theory = theory_exponent(name)
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
# **The regret exponent.** The rate {eq}`eq-lsl-rate` is asymptotic. At small $T$ few depths are
# reached, and at the shallow ones every cube survives (on quad-1d, $\Delta \le 5 r$ holds on the
# whole interval until $r < 0.1$), so the first decades are steeper than the theory. And the
# regret grows in steps, one per round, whose length grows by the factor $2^{d_z+2}$ (four to eight):
# a fit over a few horizons depends on where the steps fall. The exponent is therefore fitted on
# ID-Elim alone, over `rate_steps` horizons per decade from $10^{6}$ to $10^{10}$ (one run is a
# few thousand blocks of pulls, so large $T$ is cheap), with the $(\ln T)^{1/(d_z+2)}$ factor
# divided out. Its error has two parts. The bootstrap over the runs (`lib.loglog_slope`) gives
# the standard error of the noise, which is tiny. The staircase gives a larger, systematic one:
# refitting on the two half-windows ($10^6$ to $10^8$ and $10^8$ to $10^{10}$) moves the slope by
# several hundredths. The half-window slopes $s_1, s_2$ are each about $|s_1 - s_2|/2$ off, and
# the error that a bounded periodic staircase puts on a least-squares slope falls like one over
# the window's length, so we charge the full window $|s_1 - s_2|/4$. The error bar is
# $3\,\mathrm{se} + |s_1 - s_2|/4$.
#
# The three theories differ by at least $\tfrac1{15}$ (exponents $\tfrac12, \tfrac35, \tfrac23$
# for $d_z = 0, \tfrac12, 1$). A fitted slope identifies its function's zooming dimension when
# the slope, widened by that error bar, lies closer to its own theory than to any other:
# $|\text{slope} - \tfrac{d_z+1}{d_z+2}| + 3\,\mathrm{se} + |s_1 - s_2|/4 < \tfrac1{30}$, half
# the smallest gap. This check has little room. Charged the unscaled $|s_1 - s_2|/2$, the largest
# margin is {glue:}`lsl_margin_unscaled`, at the edge of $\tfrac1{30}$: at this window the data
# separate the three exponents, but only just.

# %%
clock = time.perf_counter()
lo, hi = rate_decades
T_rate = np.unique(np.round(10 ** np.arange(lo, hi + 1e-9, 1 / rate_steps)))
T_rate = T_rate.astype(np.int64)
rate_reg, rate_fit, log_shift = {}, {}, {}  # function -> [horizon, seed], fit, shift
halves = {}  # function -> slopes on the first and the second half of the window
mid = np.sqrt(T_rate[0] * T_rate[-1])  # the two half-windows share this horizon
half_sel = (T_rate <= mid * 1.01, T_rate >= mid / 1.01)
for name in lib.progress(functions, enabled=progress, desc="rate"):
    out = id_elim(name, np.repeat(T_rate, n_seeds))
    rate_reg[name] = out[0].reshape(len(T_rate), n_seeds)
    lost["rate", name] = out[3]
    power = 1 / (theory_dz(name) + 2)  # of the log factor of eq. (eq-lsl-rate)
    y = rate_reg[name] / np.log(T_rate)[:, None] ** power
    rate_fit[name] = lib.loglog_slope(T_rate, y.T, seed=seed)
    halves[name] = [
        lib.loglog_slope(T_rate[sel], y[sel].T, seed=seed).slope for sel in half_sel
    ]
    log_shift[name] = power * slope(np.log(T_rate), T_rate)
    key = "lsl_slope_" + name.replace("-", "_")
    glue(key, round(float(rate_fit[name].slope), 3), display=False)
t_rate = time.perf_counter() - clock
exponents = sorted({(dz + 1) / (dz + 2) for _, dz in FUNCTIONS.values()})
half_gap = np.diff(exponents).min() / 2


def window_err(name, scale=4):
    """3 bootstrap s.e. plus the window error: the half-window slopes differ by
    |s1 - s2|, so each is about |s1 - s2| / 2 off; a least-squares slope's error from
    the staircase falls like 1 / (window length), so the full window's is half that."""
    return 3 * rate_fit[name].se + abs(np.diff(halves[name])[0]) / scale


margin = {
    nm: abs(rate_fit[nm].slope - theory_exponent(nm)) + window_err(nm)
    for nm in functions
}
print(
    f"ID-Elim, T = 1e{lo} to 1e{hi}, {len(T_rate)} horizons: {t_rate:.1f} s wall-clock"
)
print(f"half the smallest gap between the theories: {half_gap:.4f}")
print("function   theory  slope (halves)         |dev| + err    slope per decade")
for name in functions:
    f, per_decade = rate_fit[name], []
    power = 1 / (theory_dz(name) + 2)
    for a in range(lo, hi):
        sel = (T_rate >= 10**a) & (T_rate <= 10 ** (a + 1))
        y = rate_reg[name][sel].mean(1) / np.log(T_rate[sel]) ** power
        per_decade.append(slope(y, T_rate[sel]))
    print(
        f"{name:<10} {theory_exponent(name):.3f}   {f.slope:.3f} "
        f"({halves[name][0]:.3f}, {halves[name][1]:.3f})  {margin[name]:.3f}"
        "          " + " ".join(f"{v:.2f}" for v in per_decade)
    )


def log_margin(name, p):
    """Claim 1's margin for `name` with (ln T)^p divided out in place of the theory's
    power: least squares is linear, so every slope shifts by a fixed amount."""
    shift = 1 / (theory_dz(name) + 2) - p
    g_full, g1, g2 = (
        slope(np.log(T_rate[s]), T_rate[s])
        for s in (T_rate > 0, half_sel[0], half_sel[1])
    )
    s_full = rate_fit[name].slope + shift * g_full
    s1, s2 = halves[name][0] + shift * g1, halves[name][1] + shift * g2
    err = 3 * rate_fit[name].se + abs(s2 - s1) / 4
    return abs(s_full - theory_exponent(name)) + err


worst_half = max(
    abs(rate_fit[nm].slope - theory_exponent(nm)) + window_err(nm, scale=2)
    for nm in functions
)
print(f"largest |dev| + err with the unscaled half-window error: {worst_half:.3f}")
glue("lsl_margin_unscaled", round(float(worst_half), 3), display=False)
print("claim 1's largest |dev| + err with another power p of ln T divided out:")
for label, p in (("0", 0.0), ("1/2", 0.5), ("1", 1.0)):
    worst = max(log_margin(nm, p) for nm in functions)
    verdict = "passes" if worst < half_gap else "fails"
    print(f"  p = {label:<4} {worst:.3f}  {verdict}")
    key = "lsl_logp_" + label.replace("/", "_")
    glue(key, round(float(worst), 3), display=False)

# %% [markdown]
# {numref}`fig-log-space-lipschitz-bandits-rate` divides the regret by the theory's rate: a flat
# curve has the theory's exponent. The $(\ln T)^{1/(d_z+2)}$ factor, divided out here, adds
# between {glue:}`lsl_log_shift_min` and {glue:}`lsl_log_shift_max` to a slope fitted over these
# horizons (least squares is linear, so that is exactly the raw slope minus the log-corrected
# one). **The check tests the power of $T$, not the logarithm.** Over four decades $\ln T$
# changes by less than a factor $2$, so a power of $\ln T$ moves the slope by about as much as
# the window error does. The last
# lines of the exponent cell's output refit with another power $p$ divided out. With $p = \tfrac12$
# in place of $\tfrac1{d_z+2}$ the largest margin is {glue:}`lsl_logp_1_2`, and the check
# still passes. With no logarithm ($p = 0$) it is {glue:}`lsl_logp_0`, and with $p = 1$ it is
# {glue:}`lsl_logp_1`, both beyond $\tfrac1{30}$ in this run, but by margins of the same size
# as the window error. We divide out the theory's factor because the theory has it; the data
# do not confirm it.

# %% mystnb={"figure": {"caption": "ID-Elim's mean regret divided by the theory's rate T^((d_z+1)/(d_z+2)) (ln T)^(1/(d_z+2)), scaled to 1 at the first horizon, against the horizon T; one marker per reward function. A flat curve has the theory's exponent; a slope off by 1/30, half the smallest gap between the theories, tilts the curve by a factor 10^(1/30) per decade.", "name": "fig-log-space-lipschitz-bandits-rate"}} tags=["hide-input"]
fig, ax = lib.subplots(width=6.0, height=3.8)
for name, marker in zip(functions, "osD^"):
    power = 1 / (theory_dz(name) + 2)
    y = (
        rate_reg[name].mean(1)
        / np.log(T_rate) ** power
        / T_rate ** theory_exponent(name)
    )
    ax.plot(T_rate, y / y[0], marker + "-", ms=4, color=lib.PALETTE[0], label=name)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("horizon T (rounds)")
ax.set_ylabel("regret / theory rate (scaled)")
ax.legend(fontsize=8)
lib.show(fig)
glue("lsl_log_shift_min", round(float(min(log_shift.values())), 3), display=False)
glue("lsl_log_shift_max", round(float(max(log_shift.values())), 3), display=False)

# %% [markdown]
# **The worst case of the survival test.** On the good event the cube that contains $x^\star$
# passes every test, and in the proof sketch the $r_k/2$ in the test is what guarantees it: the
# centre of that cube can be as far as $r_k/2$ from $x^\star$, so its mean can sit $r_k/2$ below
# $f^\star$, while the comparison arm's lower bound can come as close to $f^\star$ as the deepest
# cube found so far. The radii $c_k$ cover the worst noise the good event allows, but the noise
# of a mean is typically far smaller, about $c_k / \sqrt{4 \ln T}$, and the unused part of the
# radii absorbs most of the Lipschitz term. So without the slack the test still keeps the cube
# when its centre is close to $x^\star$, and loses it when $x^\star$ sits near the cube's
# boundary. The worst case for the Lipschitz term is
# **cone-edge-1d**, the cone with $x^\star = \tfrac14$: from depth $2$ on, $x^\star$ is a corner
# of two cubes at every depth, both centres $r_k/2$ below the top. ID-Elim counts, in every run,
# the tests that a cube containing $x^\star$ failed; the count must be zero in every run of every
# function, and the control `no-slack` removes the $r_k/2$ to show that the count sees it.
#
# The check is weaker than the proof. The second part of the cell below repeats cone-edge-1d and
# cone-1d with slacks from $0$ to $r/2$. Without the slack, {glue:}`lsl_lost_no_slack` tests of
# a cube holding $x^\star$ fail, but from a slack of {glue:}`lsl_min_slack`$\,r$ on none does.
# So the check shows that *some* slack is needed at this $\sigma$ and these horizons. It cannot
# tell the proof's $r/2$ from that smaller one. The $r/2$ is what the proof needs against the
# worst-case noise, and it stays in the algorithm as theory, not as a measured requirement.

# %%
edge = id_elim("cone-edge-1d", np.repeat(T_all, n_seeds))
lost["edge"] = edge[3]
edge_reg, edge_lost = (v.reshape(len(T_all), n_seeds) for v in (edge[0], edge[3]))
print("cone-edge-1d (x* = 1/4): mean regret; runs in which a cube holding x* failed")
for h, T in enumerate(horizons):
    print(
        f"  T = {T:.0e}: {sig3(edge_reg[h].mean()):>9}; "
        f"{(edge_lost[h] > 0).sum()}/{n_seeds} runs"
    )
n_lost = sum(int(v.sum()) for v in lost.values())
n_runs = sum(v.size for v in lost.values())
print(f"failed tests of a cube holding x* over all {n_runs} ID-Elim runs: {n_lost}")
slacks = np.array([0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5])  # units of r
scan_T = np.tile(np.repeat(T_all, n_seeds), len(slacks))
per_slack = np.repeat(slacks, len(T_all) * n_seeds)
print("failed tests of a cube holding x*, same horizons and runs, by slack (x r):")
print("  slack        " + " ".join(f"{v:5.2f}" for v in slacks))
scan = 0
for name in ("cone-edge-1d", "cone-1d"):
    out = id_elim(name, scan_T, per_slack)[3].reshape(len(slacks), -1).sum(1)
    scan = scan + out
    print(f"  {name:<12} " + " ".join(f"{v:5d}" for v in out))
clean = [v for k, v in enumerate(slacks) if not scan[k:].any()]
min_slack = clean[0] if clean else np.nan
print(f"smallest slack with no failure at it or above: {min_slack:.2f} r")
glue("lsl_min_slack", round(float(min_slack), 2), display=False)
glue("lsl_lost_no_slack", int(scan[0]), display=False)

# %% [markdown]
# **Memory.** For every run the instrumented state gives a bit count: the state of
# {prf:ref}`lsl-alg-idelim` for ID-Elim, the longest cube list for BLiN-style, the arm table for
# grid UCB. We print the largest count over the runs at each horizon and plot it in
# {numref}`fig-log-space-lipschitz-bandits-memory`.

# %%
mem, held = {}, {}  # [algorithm, function] -> largest bits, numbers, per horizon
for name in functions:
    d = FUNCTIONS[name][0]
    mem["ID-Elim", name] = bits["ID-Elim", name].max(1).astype(np.int64)
    held["ID-Elim", name] = scal["ID-Elim", name].max(1).astype(np.int64)
    held["BLiN-style", name] = scal["BLiN-style", name].max(1).astype(np.int64)
    mem["BLiN-style", name] = bits["BLiN-style", name].max(1).astype(np.int64)
    mem["grid UCB", name] = np.array([grid_ucb_bits(T, d)[0] for T in horizons])
    print(
        f"{name}: bits (stored numbers) at T = "
        + ", ".join(f"{T:.0e}" for T in horizons)
    )
    for alg in ("ID-Elim", "BLiN-style"):
        row = ", ".join(f"{b:d} ({s})" for b, s in zip(mem[alg, name], held[alg, name]))
        print(f"  {alg:<11} {row}")
    row = ", ".join(
        f"{b:d} ({grid_ucb_bits(T, d)[1]})"
        for b, T in zip(mem["grid UCB", name], horizons)
    )
    print(f"  {'grid UCB':<11} {row}")

# %% mystnb={"figure": {"caption": "Memory in bits against the horizon T, log-log, one marker per reward function. ID-Elim (blue) stores the same 7 + 2d numbers at every horizon, each a little wider as T grows; the BLiN-style list (vermillion) grows with T when d_z > 0, the grid-UCB table (green, counted from its size, one line per dimension d) grows like T^(d/(d+2)), and HOO (dotted, analytic, one node of F = log2 T bits per round) like T.", "name": "fig-log-space-lipschitz-bandits-memory"}} tags=["hide-input"]
fig, ax = lib.subplots(width=6.5, height=4.4)
for name, marker in zip(functions, "osD^"):
    for c, alg in enumerate(("ID-Elim", "BLiN-style")):
        y = mem[alg, name]
        ax.plot(horizons, y, marker + "-", color=lib.PALETTE[c], label=f"{alg}, {name}")
for d, style in zip(sorted({FUNCTIONS[nm][0] for nm in functions}), ("-.", "--")):
    y = [grid_ucb_bits(T, d)[0] for T in horizons]
    ax.plot(horizons, y, style, color=lib.PALETTE[2], label=f"grid UCB, d = {d}")
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
# thresholds come from the theory (claims 1, 2, 4 and 8) or from a reading of the abstract's
# words (claims 3 and 5 to 7), as each bullet says. The list of claims is the same for every
# choice of `functions`, which must include quad-1d and ridge-2d:
#
# * **Exponent** (claim 1): for every function, the log-corrected slope over
#   $10^6 \le T \le 10^{10}$, widened by three bootstrap standard errors plus the window error
#   $|s_1 - s_2|/4$, lies within $\tfrac1{30}$ of $(d_z+1)/(d_z+2)$. That is half the smallest gap
#   between the theories for $d_z = 0, \tfrac12, 1$, so the check names each function's zooming
#   dimension; it does not test the $(\ln T)^{1/(d_z+2)}$ factor (see above). Re-tests as
#   expensive as the deepest test (`same-pulls`) steepen the slopes and fail it. So do a theory
#   blind to $d_z$ (`dz-blind`, exponent $\tfrac35$ for every function) and a quad-1d given the
#   cone's kink while the theory keeps $d_z = \tfrac12$ (`no-flat-top`). The control
#   `swapped-dz` relabels: the theory swaps the zooming dimensions of quad-1d and ridge-2d.
# * **Regret against the table-keeping baseline** (claim 2): at every horizon, ID-Elim's mean
#   regret is at most $(1 - 2^{-(d_z+1)})^{-1}$ times BLiN-style's. That is the proof sketch's
#   bound on what the re-tests cost: $2$, $1.55$ and $1.33$ for $d_z = 0, \tfrac12, 1$. The value
#   is the largest ratio divided by its function's factor. The bound compares ID-Elim with a
#   single pass over the depths, not with BLiN-style's per-depth reference, so it is the theory's
#   yardstick rather than a proved inequality between the two algorithms. The re-tests are cheap
#   because a shallow cube needs $n_k$, not $n_m$, pulls. The control `same-pulls` gives every
#   cube of round $m$ the $n_m$ pulls of the round's deepest depth, which breaks the double
#   geometric sum.
# * **Regret against the best baseline** (claim 3), grid UCB included, at the largest horizon
#   where grid UCB ran: within a factor $2$ on every function. This is the reading of
#   "comparable to the state of the art" that includes the simplest baseline; it does **not**
#   hold on quad-1d and is recorded as not reproduced. The positive control `no-flat-top`
#   changes the instance: it gives quad-1d the cone's kink in place of its flat top, and then the
#   claim holds.
# * **Memory grows like $\log T$** (claim 4), an accounting check: the count of numbers in
#   ID-Elim's `state` is the same at every horizon, and its bits per $\log_2 T$ change by less than
#   $25\%$ between the smallest and the largest horizon. Each stored variable is an integer at
#   most $T$ or a real at resolution $1/T$, so the second half holds by construction for any
#   state of a fixed number of variables; what the check can see is a state that grows with
#   $T$. Over four decades a count proportional to $T^{\alpha}$ changes the ratio by a factor
#   $10^{4\alpha}$, already about $2.5$ for $\alpha = 0.1$. The control `cache-survivors` changes
#   the algorithm: ID-Elim also keeps the list of the cubes that passed at the round's deepest
#   depth, as a variant that skips the re-tests would have to. The check catches it through the
#   functions with $d_z > 0$. On cone-1d alone it would not, because the list of survivors there
#   stays a few cubes long at every horizon.
# * **Orders of magnitude** (claims 5 to 7), read as at least $100\times$ fewer bits at the
#   largest horizon. Against the BLiN-style list on the function with $d_z = 1$ (ridge-2d) the
#   claim holds, and `cache-survivors` flips it by making ID-Elim keep such a list. Against grid
#   UCB on every function the claim is not reproduced; the positive control `textbook-grid`
#   changes the baseline, sizing the grid $\lceil T^{1/(d+2)} \rceil$ per axis, without the
#   logarithm, and then it holds. Against the BLiN-style list on the function with
#   $d_z = \tfrac12$ (quad-1d) the claim is not reproduced either. Its only control, `swapped-dz`,
#   is a relabelling: it hands the $d_z = \tfrac12$ label to ridge-2d, and also moves claim 5 to
#   quad-1d. We know of no honest positive control for claim 7 at these horizons. The quad-1d
#   list grows only like $T^{1/5}$ against ID-Elim's $\log T$, so the gap reaches $100\times$ only
#   at horizons beyond the defaults, and a change of method that lengthens BLiN-style's list
#   would no longer be the baseline.
# * **The cube containing $x^\star$ passes every test** (claim 8): in every ID-Elim run (the
#   comparison, the exponent fit and cone-edge-1d), no survival test of a cube that contains
#   $x^\star$ fails. The control `no-slack` drops the $r_k/2$ from the test. The check cannot tell
#   $r_k/2$ from a slack of {glue:}`lsl_min_slack`$\,r_k$ (see the slack scan above).

# %%
ratio = {
    name: mean_reg("ID-Elim", name) / mean_reg("BLiN-style", name) for name in functions
}


def retest_factor(name):
    """(1 - 2^-(d_z+1))^-1: the proof sketch's bound on the cost of re-testing."""
    return 1 / (1 - 2.0 ** -(theory_dz(name) + 1))


best = {}  # ID-Elim regret / best baseline regret at the UCB horizons
for name in ucb_reg:
    rows = [mean_reg("BLiN-style", name)[ucb_index], ucb_reg[name].mean(1)]
    best[name] = mean_reg("ID-Elim", name)[ucb_index] / np.min(rows, 0)
per_log = {nm: mem["ID-Elim", nm] / log2_t for nm in functions}
drift = max(v.max() / v.min() for v in per_log.values())
same_numbers = all(len(np.unique(held["ID-Elim", nm])) == 1 for nm in functions)
gain = {
    (alg, nm): mem[alg, nm][-1] / mem["ID-Elim", nm][-1]
    for alg in ("BLiN-style", "grid UCB")
    for nm in functions
}
for name in functions:
    print(
        f"{name:<9} ID-Elim / BLiN-style regret "
        + " ".join(f"{x:.2f}" for x in ratio[name])
        + f"   (re-test factor {retest_factor(name):.2f})"
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
glue(
    "lsl_ratio_min",
    round(float(min(r.min() for r in ratio.values())), 2),
    display=False,
)
glue(
    "lsl_ratio_max",
    round(float(max(r.max() for r in ratio.values())), 2),
    display=False,
)
for name in ("cone-1d", "quad-1d"):
    if name in best:
        key = "lsl_best_" + name.split("-")[0]
        glue(key, round(float(best[name][-1]), 1), display=False)
        glue(key + "_first", round(float(best[name][0]), 1), display=False)
short = {"cone-1d": "cone", "quad-1d": "quad", "ridge-2d": "ridge"}
for name in [nm for nm in functions if nm in short]:
    key = short[name]
    glue(f"lsl_gain_ucb_{key}", int(round(gain["grid UCB", name])), display=False)
    glue(f"lsl_gain_{key}", int(round(gain["BLiN-style", name])), display=False)
    glue(f"lsl_ratio_{key}", round(float(ratio[name].mean()), 2), display=False)
    glue(f"lsl_ratio_{key}_min", round(float(ratio[name].min()), 2), display=False)
if "cone-1d" in functions:
    glue("lsl_cone_list", int(held["BLiN-style", "cone-1d"].max()), display=False)
bits_id = [mem["ID-Elim", nm] for nm in functions]
glue("lsl_bits_min", int(min(b.min() for b in bits_id)), display=False)
glue("lsl_bits_max", int(max(b.max() for b in bits_id)), display=False)
per_log_mean = np.mean([v.mean() for v in per_log.values()])
glue("lsl_bits_per_log", round(float(per_log_mean), 1), display=False)

# %%
claims = lib.Claims(
    "log-space-lipschitz-bandits", paper="zhu2025lipschitz", control=control
)
worst_margin = max(margin.values())
claims.add(
    "ID-Elim's regret exponent (log-log slope of Reg / (ln T)^(1/(d_z+2)) over "
    f"T = 1e{lo}..1e{hi}), widened by 3 s.e. plus a quarter of the gap between its "
    "two half-window slopes, is within 1/30 (half the smallest gap between the "
    f"theories) of (d_z+1)/(d_z+2) on every function ({', '.join(functions)}); "
    "largest |slope - theory| + error",
    worst_margin,
    "regret O~(T^((d_z+1)/(d_z+2)))",
    worst_margin < half_gap,
    fmt="{:.3f}",
)
worst_ratio = max(ratio[nm].max() / retest_factor(nm) for nm in functions)
claims.add(
    "ID-Elim's regret is at most the proof sketch's re-test factor "
    "(1 - 2^-(d_z+1))^-1 x the BLiN-style elimination's (which stores every "
    "surviving cube), every horizon and function; largest ratio / factor",
    worst_ratio,
    "regret comparable to the state of the art",
    worst_ratio <= 1,
    fmt="{:.2f}",
)
worst_best = max(b[-1] for b in best.values())  # quad-1d is always among them
claims.add(
    "ID-Elim's regret is within 2 x the best baseline, grid UCB included, at "
    f"T = {ucb_horizons[-1]:.0e} on every function it ran on; largest ratio",
    worst_best,
    "regret comparable to the state of the art",
    worst_best <= 2.0,
    fmt="{:.1f}",
    expect=False,
)
claims.add(
    "Accounting check: ID-Elim's state holds the same number of numbers at every "
    "horizon, and its bits / log2 T change by less than 25% over the horizons "
    "(largest max/min ratio)",
    drift,
    "O(log T) bits of memory",
    same_numbers and drift <= 1.25,
    fmt="{:.2f}",
)
for dz, expect in ((1.0, True), (0.5, False)):  # quad-1d, ridge-2d always run
    g = gain["BLiN-style", [nm for nm in functions if FUNCTIONS[nm][1] == dz][0]]
    claims.add(
        f"At T = {horizons[-1]:.0e}, on the function with d_z = {dz:g}, the "
        "BLiN-style list needs >= 100 x ID-Elim's bits; ratio",
        g,
        "memory reduced by orders of magnitude",
        g >= 100,
        fmt="{:.0f}",
        expect=expect,
    )
    if dz == 1.0:
        g = min(gain["grid UCB", nm] for nm in functions)
        claims.add(
            f"At T = {horizons[-1]:.0e} the grid-UCB table needs >= 100 x ID-Elim's "
            "bits on every function; smallest ratio",
            g,
            "memory reduced by orders of magnitude",
            g >= 100,
            fmt="{:.0f}",
            expect=False,
        )
claims.add(
    "No survival test of a cube that contains x_star fails, in any ID-Elim run "
    "(comparison, exponent fit and cone-edge-1d); failed tests",
    n_lost,
    "proof sketch: on the good event the optimal cube survives",
    n_lost == 0,
    fmt="{:.0f}",
)
claims.report()

# %% [markdown]
# Every claim is also run under **controls**: named, deliberately wrong variants of this
# chapter, declared in `controls.yaml`, each taking away the idea a claim tests (a theory blind
# to the zooming dimension, re-tests as expensive as the deepest test, the survival test without
# its slack, a state that keeps the survivors' list) or, for a claim recorded as not reproduced,
# a setting in which it does hold. Claims 1, 2, 4, 5, 6 and 8 each have a control that changes
# the method (`same-pulls`, `cache-survivors`, `textbook-grid`, `no-slack`). Claim 3's positive
# control changes the instance. Claim 7 has only the relabelling `swapped-dz` (see its
# bullet). The table shows, for each claim, the controls under which its check comes out the
# other way (default parameters, seed 0). Run one with
# `make run CHAPTER=log-space-lipschitz-bandits CONTROL=no-slack`: the claims cell then names the
# control and fails if a claim it must flip still holds.
#
# ```{controls-table}
# ```
#
# ## How this compares with the paper
#
# | | paper {cite:p}`zhu2025lipschitz` (abstract) | this chapter |
# |---|---|---|
# | Algorithm | Log-Li (pseudo-code not available to us) | ID-Elim, our reconstruction: depth-first cube elimination regenerated from the root each round, one comparison arm |
# | Regret | $\tilde O(T^{(d_z+1)/(d_z+2)})$, optimal up to logs | over $T = 10^6$–$10^{10}$, log-corrected slopes {glue:}`lsl_slope_cone_1d`, {glue:}`lsl_slope_quad_1d`, {glue:}`lsl_slope_ridge_2d` for $d_z = 0, \tfrac12, 1$ (theory $0.5, 0.6, 0.667$); each names its $d_z$ (claim 1: largest distance plus error bar {seeds}`1` over seeds 0–9, against $\tfrac1{30}$); the power of $T$ only, the log factor not tested |
# | Memory | $O(\log T)$ bits | $7 + 2d$ numbers, about {glue:}`lsl_bits_per_log` bits per $\log_2 T$ ({glue:}`lsl_bits_min` to {glue:}`lsl_bits_max` bits for $T = 10^4$–$10^8$), counted from the variables the algorithm carries |
# | Lower bound | $\Omega(\log T)$ bits necessary | stated, not tested; intuition only |
# | Regret vs state of the art | "comparable" | within the re-test factor $(1 - 2^{-(d_z+1)})^{-1}$ of a BLiN-style elimination ({glue:}`lsl_ratio_min` to {glue:}`lsl_ratio_max`); but above grid UCB at $T = 10^5$, {glue:}`lsl_best_cone`$\times$ on cone-1d and {glue:}`lsl_best_quad`$\times$ on the flat-topped quad-1d (not reproduced in that reading) |
# | Memory vs state of the art | "orders of magnitude" less | at $T = 10^8$: {glue:}`lsl_gain_ridge`$\times$ less than the BLiN-style list when $d_z = 1$ (ridge-2d) and {glue:}`lsl_gain_ucb_ridge`$\times$ less than grid UCB in the plane; in one dimension {glue:}`lsl_gain_ucb_cone`$\times$ and {glue:}`lsl_gain_ucb_quad`$\times$ less than grid UCB, {glue:}`lsl_gain_quad`$\times$ less than BLiN-style when $d_z = \tfrac12$, and {glue:}`lsl_gain_cone`$\times$ when $d_z = 0$, where BLiN's list stays {glue:}`lsl_cone_list` numbers long |
# | Simulation setup | not available to us | our functions, noise $\sigma = 0.1$, horizons, and bit accounting |
#
# **Regret.** The re-tests cost less than the proof sketch allows: on cone-1d ID-Elim pays
# {glue:}`lsl_ratio_cone` times the breadth-first version on average over the horizons, and on
# ridge-2d at large $T$ it pays *less* (down to {glue:}`lsl_ratio_ridge_min`), probably because
# its comparison arm carries over between rounds and eliminates earlier than a per-depth
# reference. Both elimination algorithms lose to grid UCB at these horizons, for two reasons.
# The first is the constants: the schedule {eq}`eq-lsl-schedule` samples each surviving cube
# $16\sigma^2\ln T/r^2$ times to make every one of up to $T$ tests right with probability
# $1 - 2T^{-2}$, while UCB's optimism pays only for the arms it actually needs to rule out. The
# second is the shape of the function: the union bound is the same on cone-1d and quad-1d, yet
# the gap is {glue:}`lsl_best_cone`$\times$ on the cone and {glue:}`lsl_best_quad`$\times$ on the
# quadratic. A grid arm at distance $z$ from $x^\star$ loses only $z^2/2$ on quad-1d, so UCB's
# discretisation costs almost nothing and the many arms near the flat top are nearly free to
# pull, while elimination still pays $n_k$ pulls for every surviving cube, and on quad-1d many
# cubes survive ($d_z = \tfrac12$). The control `no-flat-top` gives quad-1d the cone's kink, and
# the gap falls to within a factor $2$ (claim 3 then holds). The paper's "comparable to the state
# of the art" most likely refers to table-keeping elimination or tree algorithms; we could not
# check which. The gap to grid UCB does not close with the horizon: in the `paper` preset, at
# $T = 10^6$, it is {paper-preset}`3`$\times$.
#
# **The slack.** Dropping the $r_k/2$ from the survival test lowers the mean regret on our
# instances (the test gets sharper, and the cube that loses $x^\star$ probably has a neighbour
# almost as good), so the regret comparisons (claims 2 and 3) do not see it. The exponent check
# (claim 1) does come out the other way under `no-slack` (controls table): losing the optimal
# cube now and then makes cone-1d's regret curve uneven, and its half-window slopes drift apart.
# That is a side effect, not the check built for the slack. Claim 8 shows what the slack costs
# instead: cubes that contain $x^\star$ fail their tests, on cone-edge-1d and even on cone-1d,
# and the guarantee of {eq}`eq-lsl-rate`, which needs the optimal cube to survive on the good
# event, is gone. How much slack the runs need is a different matter: the scan finds none lost
# from {glue:}`lsl_min_slack`$\,r$ on, because the noise here is far smaller than the worst case
# the proof covers.
#
# **Memory.** Whether the gain is "orders of magnitude" depends on the baseline and the function.
# HOO stores one node per round: against it the gain is many orders of magnitude at any $d_z$.
# Grid UCB stores a table of $T^{d/(d+2)}$ arms whatever $d_z$: at $T = 10^8$ it needs
# {glue:}`lsl_gain_ucb_cone`$\times$ and {glue:}`lsl_gain_ucb_quad`$\times$ ID-Elim's bits in one
# dimension (just short of the $100\times$ we asked for, claim 6) and
# {glue:}`lsl_gain_ucb_ridge`$\times$ in two. An elimination algorithm stores only its surviving cubes, about $r^{-d_z}$ of them
# at the finest scale, so against it the gain needs $d_z > 0$ and large $T$ (claims 5 and 7), and
# on the cones the surviving list stays a handful of cubes long.
#
# ## Try it
#
# * `-p noise_sd=0.3`: every cube needs nine times the pulls, so a given horizon is less
#   asymptotic; compare the exponent margin (claim 1) and the memory gains (the surviving list
#   is shorter) with the defaults.
# * `-p 'rate_decades=[4, 8]'`: the exponent fit over the decades of the comparison, where the
#   first depths are pre-asymptotic and the slope per decade swings with the rounds' steps: see
#   whether the fit still names each function's zooming dimension.
# * `-p 'functions=["cone-1d", "quad-1d", "ridge-2d", "cone-2d"]' -p ucb_max_dim=2`: adds the
#   cone in the plane ($d_z = 0$), with $2^d = 4$ children per cube, and grid UCB in the plane.
#   Grid UCB there stores $T^{1/2}$ arms, so its memory printout for cone-2d shows a gain well
#   above $100\times$. Claim 6 asks for it on every function and stays not reproduced because of
#   the one-dimensional ones. Compare cone-2d's exponent margin with cone-1d's.
# * `-p control='"no-slack"'`: the survival test without its slack. Claim 8 counts the failed
#   tests of the optimal cube, on cone-edge-1d and on the default cone-1d, whose maximiser is not
#   on a cube boundary.
