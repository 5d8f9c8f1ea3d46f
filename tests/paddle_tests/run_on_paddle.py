"""Run the ported Paddle tests against real PaddlePaddle.

    python tests/paddle_tests/run_on_paddle.py /path/to/python-with-paddle [test files] [pytest args...]

Test files given (by path or by name, e.g. tests/paddle_tests/test_backward.py) restrict the run to
them; without any, every test_*.py here runs. Other arguments go to pytest as they are.

Copies this folder to a temporary directory as a package, swaps the fluidc imports for Paddle's
(`import fluidc as paddle` -> `import paddle`, `import fluidc as fluid` -> `from paddle import
base as fluid`, Paddle 3.x's name for the 1.x fluid module), replaces the fluidc conftest (and its
KNOWN_GAPS table, which is about fluidc only) with one that gives each test fresh default programs,
scope and unique names under Paddle, and runs pytest there with the given python.

Files run on Paddle's legacy (ProgramDesc) static programs, FLAGS_enable_pir_api=0, like fluidc's;
a file whose docstring says `run-on-paddle: pir` runs in a second pytest with PIR on (Paddle
3.3.1's paddle.matmul / sum / exp / sqrt / multiply / ... only work on PIR programs), and one
that says `run-on-paddle: none` (ported from Paddle's 1.x tree, APIs Paddle 3.3.1 removed, or
cases Paddle 3.3.1 cannot build) is neither copied nor run.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = 'paddle_tests'

CONFTEST = '''
import pytest
import paddle
from paddle import base

paddle.enable_static()


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running test")


@pytest.fixture(autouse=True)
def fresh_programs():
    main, startup = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with base.unique_name.guard(), paddle.static.scope_guard(scope), \\
            paddle.static.program_guard(main, startup):
        yield
    # as fluidc's conftest: the next test starts as this run began (static, float32), whatever
    # mode or default dtype this one left
    paddle.enable_static()
    paddle.set_default_dtype('float32')
'''

SWAPS = [
    (re.compile(r'^(\s*)import fluidc as paddle\s*$', re.M), r'\1import paddle'),
    (re.compile(r'^(\s*)import fluidc as fluid\s*$', re.M), r'\1from paddle import base as fluid'),
]


def swap_imports(text):
    for pattern, repl in SWAPS:
        text = pattern.sub(repl, text)
    if 'fluidc' in text.replace('fluidc as', ''):
        # any other use of fluidc would make the Paddle run test fluidc again
        leftover = [ln for ln in text.splitlines() if re.search(r'\bfluidc\b', ln)
                    and not ln.lstrip().startswith('#') and '"""' not in ln]
        code = [ln for ln in leftover if 'import' in ln]
        if code:
            raise SystemExit(f'unswapped fluidc import: {code}')
    return text


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        raise SystemExit(__doc__)
    python, extra = argv[1], []
    only = set()
    for arg in argv[2:]:
        name = os.path.basename(arg.split('::')[0])
        if name.startswith('test_') and name.endswith('.py') and \
                os.path.exists(os.path.join(HERE, name)):
            only.add(name)
            if '::' in arg:  # keep a node id, rewritten to the copy's path
                extra.append(os.path.join(PKG, name) + arg[arg.index('::'):])
        else:
            extra.append(arg)
    tmp = tempfile.mkdtemp(prefix='paddle_port_')
    try:
        pkg = os.path.join(tmp, PKG)
        os.makedirs(pkg)
        for name in sorted(os.listdir(HERE)):
            if not name.endswith('.py') or name in ('conftest.py', 'run_on_paddle.py'):
                continue
            with open(os.path.join(HERE, name)) as f:
                text = f.read()
            if 'run-on-paddle: none' in text:  # a 1.x-tree port: Paddle 3.3.1 lacks its API
                continue
            with open(os.path.join(pkg, name), 'w') as f:
                f.write(swap_imports(text))
        with open(os.path.join(tmp, 'conftest.py'), 'w') as f:
            f.write(CONFTEST)
        with open(os.path.join(tmp, 'pytest.ini'), 'w') as f:
            f.write('[pytest]\nmarkers =\n    slow: long-running test\n')
        legacy, pir = [], []
        for name in sorted(os.listdir(pkg)):
            if name.startswith('test_') and name.endswith('.py') and (not only or name in only):
                with open(os.path.join(pkg, name)) as f:
                    text = f.read()
                (pir if 'run-on-paddle: pir' in text else legacy).append(os.path.join(PKG, name))
        rc = 0
        for files, flag in ((legacy, '0'), (pir, '1')):
            if not files:
                continue
            print(f'== FLAGS_enable_pir_api={flag}: {len(files)} files', flush=True)
            env = dict(os.environ, FLAGS_enable_pir_api=flag)
            env.pop('PYTHONPATH', None)
            node_ids = [a for a in extra if '::' in a]
            if node_ids:  # run just the node ids that belong to these files
                mine = [a for a in node_ids if a.split('::')[0] in files]
                if not mine:
                    continue
                files = mine
            rest = [a for a in extra if '::' not in a]
            cmd = [python, '-m', 'pytest', '-q', '-p', 'no:cacheprovider'] + files + rest
            rc = subprocess.call(cmd, cwd=tmp, env=env) or rc
        return rc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
