# Written by hatch-vcs when the package is built; added here so that the tests can import
# the source tree as it is (the Dixit example does not build the package).
__version__ = version = "4.16.1.dev5"
