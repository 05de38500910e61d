// dlopen of the CUDA/NCCL backend, once per process and never closed: the measurers it makes run
// their code from it until exit.

#include "app/measure_plugin_loader.hpp"

#include "host/file_io.hpp"
#include "cuda/cuda_measurer.hpp"
#include "cuda/plugin_abi.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace shardscope::app {
namespace {

struct LoadedPlugin {
    cuda::MakeMeasurerFn make = nullptr;
    cuda::StartMpiFn start_mpi = nullptr;
    std::string error;  // why nothing was loaded, naming the files tried
};

std::vector<std::string> plugin_candidates() {
    if (const char* forced = std::getenv("SHARDSCOPE_MEASURE_PLUGIN"); forced && *forced) return {forced};
    const std::filesystem::path bin = host::executable_dir();
    return {(bin / cuda::kPluginFileName).string(),
            (bin / SHARDSCOPE_PLUGIN_DIR_FROM_BIN / cuda::kPluginFileName).lexically_normal().string()};
}

// The entry points of the first candidate that loads and was built with this interface.
LoadedPlugin load_plugin() {
    LoadedPlugin p;
    std::string tried;
    for (const std::string& path : plugin_candidates()) {
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            tried += (tried.empty() ? "" : "; ") + std::string(why ? why : path + ": cannot be loaded");
            continue;
        }
        const auto abi = reinterpret_cast<cuda::AbiFn>(dlsym(handle, cuda::kAbiSymbol));
        const auto make = reinterpret_cast<cuda::MakeMeasurerFn>(dlsym(handle, cuda::kMakeMeasurerSymbol));
        if (!abi || !make || abi() != cuda::plugin_abi_tag()) {
            tried += (tried.empty() ? "" : "; ") + path + ": built for another version of Shardscope (interface " +
                     (abi ? abi() : "missing") + ", this program's " + cuda::plugin_abi_tag() + ")";
            dlclose(handle);
            continue;
        }
        p.make = make;
        p.start_mpi = reinterpret_cast<cuda::StartMpiFn>(dlsym(handle, cuda::kStartMpiSymbol));
        return p;
    }
    p.error = "This build's CUDA/NCCL measure backend is a plugin, and it could not be loaded (" + tried + ")";
    return p;
}

const LoadedPlugin& plugin() {
    static std::once_flag once;
    static LoadedPlugin loaded;
    std::call_once(once, [] { loaded = load_plugin(); });
    return loaded;
}

// Stands in for the backend when its plugin cannot be loaded: never ready, and says why.
class MissingPlugin final : public Measurer {
public:
    explicit MissingPlugin(std::string why) : why_(std::move(why)) {}
    [[nodiscard]] std::string name() const override { return cuda::kBackendName; }
    [[nodiscard]] BackendStatus status() override {
        BackendStatus s;
        s.message = why_ + ", so nothing can be measured. Reinstall Shardscope, or rebuild it where the CUDA toolkit "
                           "and NCCL are found (cmake -DSHARDSCOPE_CUDA=ON). The model's predictions work without it.";
        return s;
    }
    [[nodiscard]] MeasureResult measure(const SweepSpec&, const MeasureProgress&) override {
        MeasureResult r;
        r.error = status().message;
        return r;
    }
    [[nodiscard]] SingleGpuResult measure_single_gpu(const std::vector<GemmShape>&, double, int, int,
                                                     const MeasureProgress&) override {
        SingleGpuResult r;
        r.error = status().message;
        return r;
    }

private:
    std::string why_;
};

}  // namespace

std::unique_ptr<Measurer> make_plugin_measurer() {
    const LoadedPlugin& p = plugin();
    if (!p.make) return std::make_unique<MissingPlugin>(p.error);
    return std::unique_ptr<Measurer>(p.make());
}

cuda::MpiSession start_plugin_mpi_measurer() {
    const LoadedPlugin& p = plugin();
    cuda::MpiSession s;
    if (!p.make)
        s.error = p.error;
    else if (!p.start_mpi)
        s.error = "This build's CUDA/NCCL measure backend was built without MPI: rebuild where an MPI's development "
                  "files (e.g. libopenmpi-dev) are found";
    else
        p.start_mpi(&s);
    return s;
}

}  // namespace shardscope::app
