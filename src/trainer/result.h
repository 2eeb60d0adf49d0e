#pragma once

#include <string>
#include <utility>
#include <variant>

namespace kftrain::trainer {

// Hold an error message returned instead of a value.
struct Error {
    std::string message;
};

// Hold either a value or an error message.
template <typename T>
class Result {
  public:
    Result(T value) : m_data(std::move(value)) {}
    Result(Error error) : m_data(std::move(error)) {}

    // Tell whether a value is held.
    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }
    // Return the held value; call only when ok().
    T& value() { return std::get<T>(m_data); }
    const T& value() const { return std::get<T>(m_data); }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    // Return the error message; call only when !ok().
    const std::string& error() const { return std::get<Error>(m_data).message; }

  private:
    std::variant<T, Error> m_data;
};

// Stand for "nothing" in Result<Unit> returned by actions.
struct Unit {};

// Return text up to its first newline, e.g. the first line of an exception message.
inline std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

}  // namespace kftrain::trainer
