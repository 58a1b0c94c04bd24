// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Without libFuzzer (the normal and sanitizer builds): runs a fuzz target over every file
// of the given corpus directories, so each seed and each input a finding left stays a test.
#include <dirent.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    DIR* d = opendir(argv[i]);
    if (!d) {
      std::fprintf(stderr, "cannot read corpus %s\n", argv[i]);
      return 2;
    }
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::ifstream in(std::string(argv[i]) + "/" + e->d_name, std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      const std::string s = bytes.str();
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
      ++files;
    }
    closedir(d);
  }
  std::printf("%d inputs replayed\n", files);
  return files > 0 ? 0 : 1;
}
