#pragma once

#include <string>
#include <utility>
#include <variant>

namespace kftrain::util {

// An error message carried by value; the top of each command prints it. The
// code, when not 0, is the exit code the command should end with.
struct Error {
    std::string message;
    int code = 0;
};

// Make an Error from a message and an optional exit code.
inline Error error(std::string message, int code = 0) {
    return Error{std::move(message), code};
}

// A value or an error message, for code that should not throw.
template <typename T>
class Result {
  public:
    Result(T value) : m_data(std::move(value)) {}
    Result(Error err) : m_data(std::move(err)) {}

    // Return whether this holds a value.
    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }

    // Return the value; only valid when ok().
    T& value() & { return std::get<0>(m_data); }
    const T& value() const& { return std::get<0>(m_data); }
    T&& value() && { return std::get<0>(std::move(m_data)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    // Return the error message; only valid when !ok().
    const std::string& error() const { return std::get<1>(m_data).message; }
    // Return the exit code the error asks for, or fallback when it names none.
    int error_code(int fallback) const {
        int code = std::get<1>(m_data).code;
        return code != 0 ? code : fallback;
    }
    // Return the error itself, to pass it on unchanged.
    const Error& error_value() const { return std::get<1>(m_data); }

  private:
    std::variant<T, Error> m_data;
};

// Success with no value.
struct Unit {};
using Status = Result<Unit>;

// Return a successful Status.
inline Status ok_status() {
    return Unit{};
}

}  // namespace kftrain::util
