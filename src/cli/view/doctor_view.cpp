#include "cli/view/doctor_view.h"

#include "util/text.h"
#include "util/text_table.h"

namespace kftrain::cli::view {

nlohmann::json doctor_to_json(const doctor::Report& report) {
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& check : report.checks) {
        checks.push_back({{"group", check.group},
                          {"name", check.name},
                          {"state", doctor::state_name(check.state)},
                          {"found", check.found},
                          {"fix", check.fix},
                          {"needed", check.needed}});
    }
    return {{"passed", doctor::passed(report)}, {"verdict", report.verdict}, {"checks", checks}};
}

void print_doctor(std::ostream& out, const doctor::Report& report, OutputFormat format) {
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        print_data(out, doctor_to_json(report), format);
        return;
    }
    util::TextTable table({"GROUP", "CHECK", "STATE", "FOUND"});
    for (const auto& check : report.checks) {
        // An optional piece that is missing is shown as such, not as a failure.
        std::string state = doctor::state_name(check.state);
        if (!check.needed && check.state == doctor::State::Missing) {
            state += " (optional)";
        }
        table.add_row({check.group, check.name, state, check.found});
        if (check.state != doctor::State::Ok && !check.fix.empty()) {
            table.add_row({"", "", "", "fix: " + check.fix});
        }
    }
    table.print(out);
    out << "\n" << util::escape_line(report.verdict) << "\n";
}

}  // namespace kftrain::cli::view
