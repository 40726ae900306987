from setuptools import find_packages, setup

setup(
    name="urlkit",
    version="0.1.0",
    description="Small, dependency-free helpers for URLs",
    packages=find_packages(exclude=["tests"]),
    python_requires=">=3.9",
    entry_points={"console_scripts": ["urlkit=urlkit.cli:main"]},
)
