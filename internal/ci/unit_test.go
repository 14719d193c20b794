package ci
