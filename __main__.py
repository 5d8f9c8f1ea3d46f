"""`python -m fluidc`: the `fluidc` command."""
import sys

from fluidc.cli import main

sys.exit(main())
