/* --device specs and the CPU fallback of a build without CUDA (lib/nn/device.c).
 * The CUDA build's side is tests/cuda/test_cuda.c (cuda_device_open). */
#include "nn/device.h"
#include "base/err.h"
#include "test.h"

TEST(device_parse) {
  nmt_device d;
  CHECK_INT(nmt_device_parse("cpu", &d), NMT_OK);
  CHECK(d.kind == NMT_DEVICE_CPU);
  CHECK_INT(nmt_device_parse("cuda", &d), NMT_OK);
  CHECK(d.kind == NMT_DEVICE_CUDA);
  CHECK_INT(d.index, 0);
  CHECK(d.per_rank); /* under mpirun: the local rank's GPU */
  CHECK_INT(nmt_device_parse("cuda:3", &d), NMT_OK);
  CHECK(d.kind == NMT_DEVICE_CUDA);
  CHECK_INT(d.index, 3);
  CHECK(!d.per_rank);
  const char *bad[] = {"", "gpu", "CUDA", "cuda:", "cuda:-1", "cuda:1x", "cuda: 1", "cuda:99999999999", "cpu:0"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    CHECK_INT(nmt_device_parse(bad[i], &d), NMT_EUSAGE);
    CHECK(strstr(nmt_errmsg(), "expected cpu, cuda or cuda:N") != NULL);
  }
  CHECK_INT(nmt_device_parse(NULL, &d), NMT_EUSAGE);
}

TEST(device_open_without_cuda) {
  char notice[200] = "x";
  nmt_device d = {NMT_DEVICE_CPU, 0};
  CHECK_INT(nmt_device_open(&d, notice, sizeof notice), NMT_OK);
  CHECK_STR(notice, "");
  CHECK(!nmt_device_cuda_built());
  CHECK_INT(nmt_device_parse("cuda:1", &d), NMT_OK);
  CHECK_INT(nmt_device_open(&d, notice, sizeof notice), NMT_OK);
  CHECK(d.kind == NMT_DEVICE_CPU);
  CHECK_STR(notice, "this build has no CUDA support; running on CPU");
  nmt_device_close(&d);
}
