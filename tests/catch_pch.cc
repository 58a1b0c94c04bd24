// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The owner of the tests' precompiled header (tests/CMakeLists.txt); it runs nothing.
int main() { return 0; }
