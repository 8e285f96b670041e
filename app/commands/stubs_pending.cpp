// Temporary: replaced by each command's own file as it lands.
#include "commands/commands.h"
#include <ostream>
namespace linkscope::cli {
int runInspect(const Args &, std::ostream &, std::ostream &err) { err << "inspect: not built yet\n"; return 1; }
}
