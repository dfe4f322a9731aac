"""Forced-choice ranking audits: a model orders k résumés that differ only in the name.
"""
