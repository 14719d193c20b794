"""A src-layout package: the suite imports it from src/."""


def add(a, b):
    return a + b


def sub(a, b):
    return a - b
