// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#define CATCH_CONFIG_MAIN
#include <catch.hpp>
