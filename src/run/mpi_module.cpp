// geopipe-mpi.so: the sweep runner's MPI calls (run/mpi_api.h) over Open MPI. A module, loaded
// by mpi_api() only in a process that uses MPI; the one file of geopipe that includes <mpi.h>.
#include <mpi.h>

#include "run/mpi_api.h"

namespace geopipe::sweep {
namespace {

int source_of(int s) { return s == kAnySource ? MPI_ANY_SOURCE : s; }
int tag_of(int t) { return t == kAnyTag ? MPI_ANY_TAG : t; }

void init(int* rank, int* ranks) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, ranks);
}

void finalize() { MPI_Finalize(); }

void broadcast_int(int* value) { MPI_Bcast(value, 1, MPI_INT, 0, MPI_COMM_WORLD); }

void abort_job(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

bool iprobe(int source, int tag, int* from, int* got_tag, int* bytes) {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(source_of(source), tag_of(tag), MPI_COMM_WORLD, &flag, &status);
  if (!flag) return false;
  *from = status.MPI_SOURCE;
  *got_tag = status.MPI_TAG;
  MPI_Get_count(&status, MPI_BYTE, bytes);
  return true;
}

void probe(int source, int tag, int* got_tag, int* bytes) {
  MPI_Status status;
  MPI_Probe(source_of(source), tag_of(tag), MPI_COMM_WORLD, &status);
  *got_tag = status.MPI_TAG;
  MPI_Get_count(&status, MPI_BYTE, bytes);
}

void recv(void* buf, int bytes, int source, int tag) {
  MPI_Recv(buf, bytes, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void send(const void* buf, int bytes, int dest, int tag) {
  MPI_Send(buf, bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

const MpiApi kApi{kMpiApiVersion, init, finalize, broadcast_int, abort_job, iprobe, probe, recv, send};

}  // namespace
}  // namespace geopipe::sweep

extern "C" __attribute__((visibility("default"))) const geopipe::sweep::MpiApi* geopipe_mpi_api() {
  return &geopipe::sweep::kApi;
}
