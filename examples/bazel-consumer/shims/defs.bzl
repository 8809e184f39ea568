"""acme_shim_library: a cc_library holding shims (BUILD files cannot pass **kwargs themselves)."""

load("@rules_cc//cc:defs.bzl", "cc_library")
load("//generated:shimgen.bzl", "shim_library_kwargs")

def acme_shim_library(**kwargs):
    """A cc_library with the prefix definition for dependents and alwayslink.

    Args:
      **kwargs: cc_library arguments.
    """
    cc_library(**shim_library_kwargs(**kwargs))
