# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Prints the directory where Python finds packages installed under the prefix argv[1].

Debian's interpreter: /usr/lib/python3/dist-packages for the prefix /usr (its 'deb_system'
scheme, where Debian's packages put theirs), else <prefix>/lib/python3.X/dist-packages (its
'posix_local' scheme names /usr/local as <base>/local); other interpreters read
.../site-packages.
"""
import sys
import sysconfig

prefix = sys.argv[1].rstrip("/")
schemes = sysconfig.get_scheme_names()
if prefix == "/usr" and "deb_system" in schemes:
    path = sysconfig.get_path("platlib", "deb_system")
elif "posix_local" in schemes:
    path = sysconfig.get_path("platlib", "posix_local", {"base": prefix, "platbase": prefix})
    path = path.replace(prefix + "/local/", prefix + "/", 1)
else:
    path = sysconfig.get_path("platlib", "posix_prefix", {"base": prefix, "platbase": prefix})
print(path)
