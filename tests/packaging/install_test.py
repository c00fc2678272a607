#!/usr/bin/python3
"""The install rules and the relocatable data lookup (cmake/Install.cmake, harness/util/data_dir.cpp).

`cmake --install` of the build directory into a temporary prefix must hold the binary, every
file of schemas/ and suites/, each protocol's faults.json, the docs, copyright, changelog and man
page; the installed binary, run from an unrelated directory with no AGENTCONFORM_DATA_DIR, must
read its data from <prefix>/share/agentconform (`--version` says where, and why) and pass cases
of the embedded lobby. The other lookup rules are checked through `--version` too: the variable
wins, a shipped agentconform-data directory next to the executable, the source tree last.

Run by CTest (tests/CMakeLists.txt) with AC_CLI, AC_SOURCE_DIR and AC_BUILD_DIR in the environment.
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.environ["AC_SOURCE_DIR"]
BUILD = os.environ["AC_BUILD_DIR"]
CLI = os.environ["AC_CLI"]
PROTOCOLS = ("alp", "agora", "agentprotocol", "a2acp", "chopsticks")


def files_under(top):
    out = set()
    for d, _, names in os.walk(top):
        for n in names:
            out.add(os.path.relpath(os.path.join(d, n), top))
    return out


def clean_env():
    return {k: v for k, v in os.environ.items() if k != "AGENTCONFORM_DATA_DIR"}


def link_or_copy(src, dst):
    try:
        os.link(src, dst)  # the ASan binary is large: a hard link where the file system allows
    except OSError:
        shutil.copy2(src, dst)


class Installed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ac-install-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        p = subprocess.run(["cmake", "--install", BUILD, "--prefix", cls.prefix], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        cls.install_log = p.stdout
        cls.install_rc = p.returncode
        cls.exe = os.path.join(cls.prefix, "bin", "agentconform")
        cls.elsewhere = os.path.join(cls.tmp, "elsewhere")
        os.makedirs(cls.elsewhere)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def version(self, exe, env):
        p = subprocess.run([exe, "--version"], cwd=self.elsewhere, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        return p.stdout

    def test_layout(self):
        self.assertEqual(self.install_rc, 0, self.install_log)
        self.assertTrue(os.access(self.exe, os.X_OK))
        data = os.path.join(self.prefix, "share", "agentconform")
        for sub in ("schemas", "suites"):
            self.assertEqual(files_under(os.path.join(data, sub)), files_under(os.path.join(ROOT, sub)), sub)
        for p in PROTOCOLS:
            self.assertTrue(os.path.isfile(os.path.join(data, "suites", p, "requirements.json")), p)
            self.assertTrue(os.path.isfile(os.path.join(data, "reference", p, "faults.json")), p)
        if os.path.isdir(os.path.join(ROOT, "examples", "targets")):
            self.assertEqual(files_under(os.path.join(data, "examples", "targets")), files_under(os.path.join(ROOT, "examples", "targets")))
        doc = os.path.join(self.prefix, "share", "doc", "agentconform")
        for name in ("README.md", "ci.md", "packaging.md", "copyright", "changelog.gz"):
            self.assertTrue(os.path.isfile(os.path.join(doc, name)), name)
        self.assertTrue(os.path.isfile(os.path.join(self.prefix, "share", "man", "man1", "agentconform.1.gz")))
        # Only the reference lobby's fault catalogues, not its sources.
        self.assertEqual({os.path.basename(f) for f in files_under(os.path.join(data, "reference"))}, {"faults.json"})

    def test_version_names_the_release_and_the_installed_data(self):
        out = self.version(self.exe, clean_env())
        with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
            version = re.search(r"project\(agentconform VERSION ([0-9.]+)", f.read()).group(1)
        self.assertRegex(out.splitlines()[0], rf"^agentconform {re.escape(version)}( \(git [0-9A-Za-z.+-]+\))?$")
        self.assertIn(f"data: {os.path.join(self.prefix, 'share', 'agentconform')} (installed)", out)

    def test_installed_binary_runs_from_anywhere_without_environment(self):
        report = os.path.join(self.tmp, "report")
        p = subprocess.run([self.exe, "run", "--protocol", "chopsticks", "--case", "CHOP-VER-00*", "--jobs", "2",
                            "--report", "json", "--report-dir", report],
                           cwd=self.elsewhere, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertTrue(os.path.isfile(os.path.join(report, "results.json")))
        # The fault catalogue comes from the installed tree too.
        p = subprocess.run([self.exe, "lobby", "--list-faults"], cwd=self.elsewhere, env=clean_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("chopsticks.version.accept-missing", p.stdout)

    def test_environment_variable_wins(self):
        empty = os.path.join(self.tmp, "empty-data")
        os.makedirs(empty, exist_ok=True)
        out = self.version(self.exe, dict(clean_env(), AGENTCONFORM_DATA_DIR=empty))
        self.assertIn(f"data: {empty} (AGENTCONFORM_DATA_DIR)", out)
        # A data directory without the data: the run says which file it could not read, and where.
        p = subprocess.run([self.exe, "run", "--protocol", "chopsticks", "--case", "CHOP-VER-001", "--report", "none"],
                           cwd=self.elsewhere, env=dict(clean_env(), AGENTCONFORM_DATA_DIR=empty),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(empty, p.stdout)

    def test_shipped_directory_next_to_the_executable(self):
        d = os.path.join(self.tmp, "out")
        os.makedirs(d, exist_ok=True)
        exe = os.path.join(d, "agentconform")
        link_or_copy(self.exe, exe)
        os.symlink(os.path.join(self.prefix, "share", "agentconform"), os.path.join(d, "agentconform-data"))
        self.assertIn(f"data: {os.path.join(d, 'agentconform-data')} (shipped next to the executable)",
                      self.version(exe, clean_env()))

    def test_source_tree_is_the_last_resort(self):
        d = os.path.join(self.tmp, "bare", "bin")
        os.makedirs(d, exist_ok=True)
        exe = os.path.join(d, "agentconform")
        link_or_copy(self.exe, exe)
        self.assertIn(f"data: {ROOT} (source tree)", self.version(exe, clean_env()))
        # The build tree's own binary reads the checkout as before.
        self.assertIn(f"data: {ROOT} (source tree)", self.version(CLI, clean_env()))


if __name__ == "__main__":
    unittest.main(verbosity=2)
