// A C++ MPI program of the kind real codes are: templates, the STL,
// std::vector buffers handed to MPI, classes with RAII. Printed results
// are compared with the native build.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

template <typename T> struct MpiType;
template <> struct MpiType<double> { static MPI_Datatype get() { return MPI_DOUBLE; } };
template <> struct MpiType<int> { static MPI_Datatype get() { return MPI_INT; } };
template <> struct MpiType<long long> { static MPI_Datatype get() { return MPI_LONG_LONG; } };

template <typename T> std::vector<T> allgather(const std::vector<T> &mine, MPI_Comm comm) {
    int size;
    MPI_Comm_size(comm, &size);
    std::vector<T> all(mine.size() * size);
    MPI_Allgather(mine.data(), (int)mine.size(), MpiType<T>::get(), all.data(), (int)mine.size(),
                  MpiType<T>::get(), comm);
    return all;
}

template <typename T> T sum(const std::vector<T> &v, MPI_Comm comm) {
    T local = std::accumulate(v.begin(), v.end(), T(0)), total = T(0);
    MPI_Allreduce(&local, &total, 1, MpiType<T>::get(), MPI_SUM, comm);
    return total;
}

class Comm {  // RAII over a duplicated communicator
  public:
    explicit Comm(MPI_Comm parent) { MPI_Comm_dup(parent, &c_); }
    ~Comm() { MPI_Comm_free(&c_); }
    Comm(const Comm &) = delete;
    Comm &operator=(const Comm &) = delete;
    MPI_Comm get() const { return c_; }
    int rank() const { int r; MPI_Comm_rank(c_, &r); return r; }
    int size() const { int s; MPI_Comm_size(c_, &s); return s; }

  private:
    MPI_Comm c_;
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    {
        Comm comm(MPI_COMM_WORLD);
        int rank = comm.rank(), size = comm.size();
        std::vector<double> x(1000);
        std::iota(x.begin(), x.end(), rank * 1000.0);
        std::transform(x.begin(), x.end(), x.begin(), [](double v) { return v * 0.5 + 1.0; });
        std::vector<int> ids{rank, rank * rank, -rank};
        auto all = allgather(ids, comm.get());
        std::sort(all.begin(), all.end());
        std::map<std::string, long long> counts;
        for (int v : all)
            counts[v < 0 ? "negative" : v == 0 ? "zero" : "positive"]++;
        auto words = std::make_unique<std::vector<std::string>>();
        for (auto &kv : counts)
            words->push_back(kv.first + "=" + std::to_string(kv.second));
        std::vector<long long> big(1 << 16, rank + 1);
        if (rank == 0) {
            std::printf("sum of x over ranks: %.3f\n", sum(x, comm.get()));
            std::printf("sorted ids:");
            for (int v : all)
                std::printf(" %d", v);
            std::printf("\ncounts:");
            for (auto &w : *words)
                std::printf(" %s", w.c_str());
            std::printf("\n");
        } else {
            sum(x, comm.get());
        }
        long long total = sum(big, comm.get());
        if (rank == 0)
            std::printf("vector<long long> total: %lld (expected %lld)\n", total,
                        (long long)(1 << 16) * size * (size + 1) / 2);
    }
    MPI_Finalize();
    return 0;
}
