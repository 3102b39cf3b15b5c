// The statically linked front end's stand-ins for the six libltdl functions that GLPK's archive
// refers to (libglpk.a's dlsup.o, GLPK's loader of ODBC/MySQL table drivers, which geopipe
// never uses: it only solves linear programs, sched/linear_program.h). Linking libltdl.a instead
// would pull glibc's dlopen into a -static program, which the linker warns about and which
// could not load a library of another glibc anyway. Every call fails, as lt_dl* report failure.
// Compiled into `geopipe` only when GEOPIPE_FRONT_END_LINK is "static" (src/CMakeLists.txt).

extern "C" {
using lt_dlhandle = void*;
int lt_dlinit() { return 0; }
int lt_dlexit() { return 0; }
lt_dlhandle lt_dlopen(const char*) { return nullptr; }
void* lt_dlsym(lt_dlhandle, const char*) { return nullptr; }
int lt_dlclose(lt_dlhandle) { return 1; }
const char* lt_dlerror() { return "dynamic loading is not available in the statically linked geopipe"; }
}
