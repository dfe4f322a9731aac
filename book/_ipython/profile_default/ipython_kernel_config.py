# IPython configuration of the book's kernels: `make book` (and tests/test_book_render.py)
# run jupyter-book with IPYTHONDIR=book/_ipython, so every chapter's kernel loads the figure
# check of popresume/plots/layout.py: a figure with overlapping or cut
# text gets a FigureLayoutWarning under it, which fails the rendering tests. A reader's own
# kernel does not read this file and is left alone.
c = get_config()  # noqa: F821 - provided by IPython when it reads this file
c.InteractiveShellApp.extensions = ["popresume.plots.layout"]
c.HistoryManager.enabled = False  # nothing written into the repository
