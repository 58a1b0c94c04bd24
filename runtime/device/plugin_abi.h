// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/* The ABI between libnexar and its CUDA plugin (libnexar-cuda.so). Plain C, versioned:
 * the plugin exports one symbol, nexar_cuda_plugin_v1, a function returning a pointer to a
 * static table. libnexar checks abi_version and struct_size before using any entry; a
 * later version only appends entries (struct_size tells how many a plugin has).
 *
 * Conventions: every entry returning int gives 0 on success; on failure the plugin keeps a
 * message for the calling thread, read with last_error(). Streams, events and NCCL
 * communicators are opaque pointers (cudaStream_t, cudaEvent_t, ncclComm_t). dtype and op
 * are nexar_dtype_t and nexar_op_t values. Every entry applies the device chosen by init()
 * to the calling thread first (the CUDA runtime's current device is per thread).
 */
#ifndef NEXAR_DEVICE_PLUGIN_ABI_H
#define NEXAR_DEVICE_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NEXAR_CUDA_PLUGIN_ABI_VERSION 1u
#define NEXAR_CUDA_PLUGIN_SYMBOL "nexar_cuda_plugin_v1"
#define NEXAR_NCCL_ID_BYTES 128

typedef enum { NEXAR_COPY_D2H = 0, NEXAR_COPY_H2D = 1, NEXAR_COPY_D2D = 2 } nexar_copy_kind_t;

typedef struct nexar_cuda_plugin_table_v1 {
  uint32_t abi_version; /* NEXAR_CUDA_PLUGIN_ABI_VERSION */
  uint32_t struct_size; /* sizeof(nexar_cuda_plugin_table_v1) as the plugin was built */
  const char *description; /* "CUDA runtime 13000, NCCL 22803" */
  int has_nccl;            /* NCCL entries usable */

  const char *(*last_error)(void);

  /* Picks this process's GPU: the current one when the program already made a context
   * current or CUDA_VISIBLE_DEVICES is set, else local_rank modulo the device count. */
  int (*init)(int local_rank, int *device);
  /* *is_device = 1 for device memory (not managed, not host), with its ordinal. */
  int (*pointer_kind)(const void *p, int *is_device, int *device);

  int (*host_alloc)(size_t bytes, void **out); /* pinned */
  int (*host_free)(void *p);
  int (*device_alloc)(size_t bytes, void **out);
  int (*device_free)(void *p);

  int (*stream_create)(void **stream); /* non-blocking with respect to the legacy stream */
  int (*stream_destroy)(void *stream);
  int (*stream_sync)(void *stream);
  int (*memcpy_async)(void *dst, const void *src, size_t bytes, int kind, void *stream);

  int (*event_create)(void **event); /* timing disabled */
  int (*event_destroy)(void *event);
  int (*event_record)(void *event, void *stream);
  int (*event_sync)(void *event);
  int (*stream_wait_event)(void *stream, void *event);

  /* NCCL (has_nccl). id: NEXAR_NCCL_ID_BYTES bytes. */
  int (*nccl_get_unique_id)(void *id);
  int (*nccl_comm_init)(void **comm, int nranks, const void *id, int rank);
  int (*nccl_comm_destroy)(void *comm);
  int (*nccl_group_start)(void);
  int (*nccl_group_end)(void);
  int (*nccl_allreduce)(const void *send, void *recv, size_t count, int dtype, int op, void *comm, void *stream);
  int (*nccl_broadcast)(const void *send, void *recv, size_t count, int dtype, int root, void *comm, void *stream);
  int (*nccl_reduce)(const void *send, void *recv, size_t count, int dtype, int op, int root, void *comm,
                     void *stream);
  int (*nccl_allgather)(const void *send, void *recv, size_t sendcount, int dtype, void *comm, void *stream);
  int (*nccl_reduce_scatter)(const void *send, void *recv, size_t recvcount, int dtype, int op, void *comm,
                             void *stream);
  int (*nccl_send)(const void *buf, size_t count, int dtype, int peer, void *comm, void *stream);
  int (*nccl_recv)(void *buf, size_t count, int dtype, int peer, void *comm, void *stream);
} nexar_cuda_plugin_table_v1;

typedef const nexar_cuda_plugin_table_v1 *(*nexar_cuda_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* NEXAR_DEVICE_PLUGIN_ABI_H */
