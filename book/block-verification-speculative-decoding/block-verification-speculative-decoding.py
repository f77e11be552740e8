# ---
# jupyter:
#   jupytext:
#     default_lexer: ipython3
#     formats: ipynb,md:myst,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Block verification for speculative decoding
#
# Skeleton.

# %% tags=["parameters"]
seed = 0
device = "cpu"
n = 100

# %%
import numpy as np

import lib

lib.check_int("n", n, low=1)
rng, device = lib.setup(seed, device)

# %%
x = rng.normal(size=n)
print(f"mean = {x.mean():.3f}")
fig, ax = lib.subplots()
ax.hist(x, label="x")
ax.set_xlabel("x"); ax.set_ylabel("count"); ax.legend()
lib.show(fig)

# %%
claims = lib.Claims("block-verification-speculative-decoding", paper="sun2025block")
claims.add("mean near zero", abs(x.mean()), "0", abs(x.mean()) < 1)
claims.add("std near one", x.std(), "1", abs(x.std() - 1) < 0.5)
claims.report()
