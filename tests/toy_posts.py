"""A toy post registry for the harness tests' throwaway suites (``pytester``): the conftest text that registers one
post, ``T``, with two sections, ``s`` and ``t``, through the harness's ``pytest_claims_posts`` hook."""

TOY_POSTS = '''
from llm_claims_harness.posts import Post, Section

def pytest_claims_posts(config):
    return [Post("T", "A toy post", (Section("s", "the toy section"), Section("t", "a later section")))]
'''
